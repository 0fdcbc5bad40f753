// A file's confirmation (`PATCH /v2/files/{id}.json`) is one exchange with the database (one HTTP
// batch, no WebSocket connection): the file locked, its checks, the change with its event and the
// read-back; a check that fails answers the same 4xx in that exchange and leaves the file as it
// was (docs/connection-strategy.md, "Writes in one round trip").
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { fileRef, uploadedFile, uploadTo } from '../support/files';
import { withRoundTrips } from '../support/round-trips';

let site: SeededInstallation;
let other: SeededInstallation;
let agent: string;

beforeAll(async () => {
  site = await newInstallation('confirm-trips');
  other = await newInstallation('confirm-trips-other');
  agent = site.users.agent.apiKey;
  // each credential is looked up once, then remembered: the confirmations below are the write alone
  for (const installation of [site, other])
    for (const user of Object.values(installation.users)) await api('/v2/files.json', { key: user.apiKey });
});

/** Steps one and two by the holder of `key`: the file's id, its bytes in, not yet confirmed. */
async function uploaded(key: string, filename = 'trip.txt'): Promise<number> {
  const started = await fileRef(key, { filename, mimeType: 'text/plain' });
  expect(started.status, started.text).toBe(201);
  expect((await uploadTo(started.body, 'bytes')).status).toBe(201);
  return started.body.file.id;
}

/** The confirmation, and the round trips its request made. */
const confirm = (id: number, body: unknown, key = agent) =>
  withRoundTrips(`/v2/files/${id}.json`, { method: 'PATCH', key, body });

const stored = async (id: number) =>
  (
    await rows<{ name: string; disposition: string; confirmed_at: Date | null }>(
      'SELECT name, disposition, confirmed_at FROM files WHERE id = $1',
      [id],
    )
  )[0]!;
const fileEvents = async (id: number) =>
  rows<{ data: Record<string, unknown> }>(
    `SELECT data FROM events WHERE record_type = 'files' AND record_id = $1 AND kind = 'updated' ORDER BY id`,
    [id],
  );

describe('a file confirmed in one round trip', () => {
  it('confirms and renames in one exchange, with its event; confirming again changes nothing of the file, also in one', async () => {
    const id = await uploaded(agent);
    const { answer, trips } = await confirm(id, {
      file: { filename: 'renamed.txt', disposition: 'attachment-inline', mimeType: 'TEXT/plain' },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(trips).toBe(1);
    expect(answer.body.file).toMatchObject({
      id,
      filename: 'renamed.txt',
      disposition: 'attachment-inline',
      mimeType: 'text/plain',
      confirmedAt: expect.any(String),
    });
    expect((await stored(id)).confirmed_at).toBeInstanceOf(Date);
    const [event] = await fileEvents(id);
    expect(event!.data).toMatchObject({
      filename: { after: 'renamed.txt' },
      disposition: { after: 'attachment-inline' },
      confirmedAt: { before: null },
    });

    const again = await confirm(id, {});
    expect(again.answer.status, again.answer.text).toBe(200);
    expect(again.trips).toBe(1);
    // (its updatedAt moves, as ever; what it says of the file does not)
    expect(again.answer.body.file).toEqual({ ...answer.body.file, updatedAt: expect.any(String) });
    expect(await fileEvents(id)).toHaveLength(1);
  });

  it('refuses in the same exchange, writing nothing: not found, not the uploader, bytes not in, another type', async () => {
    // another installation's file, and one that never was: 404
    const theirs = await uploaded(other.users.agent.apiKey);
    for (const id of [theirs, 987654321]) {
      const { answer, trips } = await confirm(id, { file: { filename: 'taken.txt' } });
      expect(answer.status).toBe(404);
      expect(answer.body.errors).toEqual([{ code: 'notFound', source: 'id', detail: `file ${id} not found` }]);
      expect(trips).toBe(1);
    }
    expect(await stored(theirs)).toMatchObject({ name: 'trip.txt', confirmed_at: null });

    // the owner's upload, which the agent sees as an attachment of a ticket it sees: only its uploader (or an admin) confirms it
    const owner = site.users.owner.apiKey;
    const ownersFile = await uploaded(owner, 'owners.txt');
    expect((await api(`/v2/files/${ownersFile}.json`, { method: 'PATCH', key: owner })).status).toBe(200);
    const inbox = (await api('/v2/inboxes.json', { key: agent })).body.inboxes[0].id;
    const ticket = await api('/v2/tickets.json', {
      method: 'POST',
      key: owner,
      body: {
        subject: 'Shared file',
        inbox,
        customer: { email: 'trips@files.test' },
        message: 'see',
        files: [{ id: ownersFile }],
      },
    });
    expect(ticket.status, ticket.text).toBe(201);
    const notYours = await confirm(ownersFile, { file: { filename: 'mine-now.txt' } });
    expect(notYours.answer.status).toBe(403);
    expect(notYours.answer.body.errors).toEqual([
      { code: 'forbidden', detail: 'only the uploader, an owner or an admin confirms a file' },
    ]);
    expect(notYours.trips).toBe(1);
    expect((await stored(ownersFile)).name).toBe('owners.txt');

    // the bytes not in yet: 409
    const early = await fileRef(agent, { filename: 'early.txt', mimeType: 'text/plain' });
    const notIn = await confirm(early.body.file.id, { file: { filename: 'late.txt' } });
    expect(notIn.answer.status).toBe(409);
    expect(notIn.answer.body.errors).toEqual([
      {
        code: 'conflict',
        source: 'id',
        detail: 'the bytes have not arrived: post the form from POST /v2/files/ref.json first',
      },
    ]);
    expect(notIn.trips).toBe(1);
    expect(await stored(early.body.file.id)).toMatchObject({ name: 'early.txt', confirmed_at: null });

    // another type than uploaded: 400 naming the type it was uploaded as
    const typed = await uploaded(agent, 'typed.txt');
    const mistyped = await confirm(typed, { file: { filename: 'typed.png', mimeType: 'image/png' } });
    expect(mistyped.answer.status).toBe(400);
    expect(mistyped.answer.body.errors).toEqual([
      { code: 'invalid', source: 'file.mimeType', detail: 'the file was uploaded as text/plain' },
    ]);
    expect(mistyped.trips).toBe(1);
    expect(await stored(typed)).toMatchObject({ name: 'typed.txt', confirmed_at: null });
    expect(await fileEvents(typed)).toEqual([]);
  });

  it("lets an admin confirm a teammate's upload, in one exchange", async () => {
    const id = await uploaded(agent, 'teammates.txt');
    const { answer, trips } = await confirm(id, undefined, site.users.admin.apiKey);
    expect(answer.status, answer.text).toBe(200);
    expect(trips).toBe(1);
    expect((await stored(id)).confirmed_at).toBeInstanceOf(Date);
    // a confirmed upload can be attached
    expect(await uploadedFile(agent, 'x')).toEqual(expect.any(Number));
  });
});

describe("an upload's form", () => {
  it('is two exchanges: the id taken first (the key names it), then the pending file written and read back; the form posts the bytes to that file', async () => {
    const started = await withRoundTrips('/v2/files/ref.json', {
      method: 'POST',
      key: agent,
      body: { filename: 'form.txt', mimeType: 'text/plain' },
    });
    expect(started.answer.status, started.answer.text).toBe(201);
    expect(started.trips).toBe(2);
    const id = started.answer.body.file.id as number;
    const [row] = await rows<{ storage_key: string; confirmed_at: Date | null; upload_token_hash: string | null }>(
      'SELECT storage_key, confirmed_at, upload_token_hash FROM files WHERE id = $1',
      [id],
    );
    expect(row!.storage_key).toContain(String(id));
    expect(row!.confirmed_at).toBeNull();
    expect(row!.upload_token_hash).not.toBeNull();
    expect((await uploadTo(started.answer.body, 'bytes')).status).toBe(201);
    const confirmed = await confirm(id, { file: { name: 'form.txt' } });
    expect(confirmed.answer.status, confirmed.answer.text).toBe(200);
  });
});
