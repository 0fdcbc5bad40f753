// Step three as the platform's client and samples send it: `PATCH /v2/files/{id}.json` with no
// body and no content type ("tell desk the file has been uploaded"), after step one as its sample
// sends it and step two as its client posts the form. The file is then confirmed as the body form
// confirms it; only this route's body is optional.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { uploadTo } from '../support/files';

let site: SeededInstallation;
let agent: string;

beforeAll(async () => {
  site = await newInstallation('files-bare-confirm');
  agent = site.users.agent.apiKey;
});

/** Steps one and two: the platform's sample's body for the ref, then its client's form. */
async function uploadedPending(filename: string, bytes: string): Promise<number> {
  const started = await api('/v2/files/ref.json', {
    method: 'POST',
    key: agent,
    body: { type: 'attachment', filename, mimeType: 'text/plain', disposition: 'attachment' },
  });
  expect(started.status, started.text).toBe(201);
  expect((await uploadTo(started.body, bytes, filename)).status).toBe(201);
  return started.body.file.id;
}

const confirmedAt = async (id: number) =>
  (await rows<{ confirmed_at: Date | null }>('SELECT confirmed_at FROM files WHERE id = $1', [id]))[0]!.confirmed_at;

describe('PATCH /v2/files/{id}.json with no body', () => {
  it('confirms the upload: the row, the answer and a later read say so, and the file can be attached', async () => {
    const id = await uploadedPending('bare.txt', 'confirmed bare');
    expect(await confirmedAt(id)).toBeNull();
    const confirmed = await api(`/v2/files/${id}.json`, { method: 'PATCH', key: agent });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.file).toMatchObject({ id, filename: 'bare.txt', mimeType: 'text/plain', size: 14 });
    expect(confirmed.body.file.confirmedAt).toEqual(expect.any(String));
    expect(await confirmedAt(id)).toBeInstanceOf(Date);
    expect((await api(`/v2/files/${id}.json`, { key: agent })).body.file.confirmedAt).toBe(
      confirmed.body.file.confirmedAt,
    );

    const inbox = (await api('/v2/inboxes.json', { key: agent })).body.inboxes[0].id;
    const ticket = await api('/v2/tickets.json', {
      method: 'POST',
      key: agent,
      body: { subject: 'Bare', inbox, customer: { email: 'bare@files.test' }, message: 'see', files: [{ id }] },
    });
    expect(ticket.status, ticket.text).toBe(201);
    const download = await api(`/v2/tickets/${ticket.body.ticket.id}/files/${id}/download`, { key: agent });
    expect(download.text).toBe('confirmed bare');
  });

  it('confirms with an empty JSON object or an empty body sent as JSON too, changing nothing else', async () => {
    for (const body of ['{}', '']) {
      const id = await uploadedPending('empty.txt', 'x');
      const confirmed = await api(`/v2/files/${id}.json`, {
        method: 'PATCH',
        key: agent,
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect(confirmed.status, `${JSON.stringify(body)}: ${confirmed.text}`).toBe(200);
      expect(confirmed.body.file).toMatchObject({ filename: 'empty.txt', disposition: 'attachment' });
      expect(await confirmedAt(id)).toBeInstanceOf(Date);
    }
  });

  it('is still refused before the bytes are in, and a body that is not JSON is still a 415', async () => {
    const started = await api('/v2/files/ref.json', {
      method: 'POST',
      key: agent,
      body: { type: 'attachment', filename: 'early.txt', mimeType: 'text/plain', disposition: 'attachment' },
    });
    expectError(await api(`/v2/files/${started.body.file.id}.json`, { method: 'PATCH', key: agent }), 409, 'id');
    await uploadTo(started.body, 'late');
    expectError(
      await api(`/v2/files/${started.body.file.id}.json`, {
        method: 'PATCH',
        key: agent,
        body: 'filename=x',
        headers: { 'content-type': 'text/plain' },
      }),
      415,
    );
    expectError(
      await api(`/v2/files/${started.body.file.id}.json`, {
        method: 'PATCH',
        key: agent,
        body: new Uint8Array([1, 2, 3]),
      }),
      415,
    );
    expect(await confirmedAt(started.body.file.id)).toBeNull();
    expectError(
      await api(`/v2/files/${started.body.file.id}.json`, { method: 'PATCH', key: site.users.collaborator.apiKey }),
      404,
    );
    expect(await confirmedAt(started.body.file.id)).toBeNull();
  });

  it('leaves every other JSON body required, as the document says', async () => {
    const company = (
      await api('/v2/companies.json', { method: 'POST', key: site.users.owner.apiKey, body: { name: 'Needs a body' } })
    ).body.company.id;
    expectError(
      await api(`/v2/companies/${company}.json`, { method: 'PATCH', key: site.users.owner.apiKey }),
      400,
      'body',
      /required/,
    );
    const document = (await api('/v2/openapi.json')).body;
    expect(document.paths['/v2/files/{id}.json'].patch.requestBody.required ?? false).toBe(false);
    const required = Object.values(
      document.paths as Record<
        string,
        Record<string, { operationId: string; requestBody?: { required?: boolean; content: Record<string, unknown> } }>
      >,
    )
      .flatMap((methods) => Object.values(methods))
      .filter((operation) => operation.requestBody?.content['application/json'] && !operation.requestBody.required)
      .map((operation) => operation.operationId);
    // (OAuth's token and revocation endpoints take a form or JSON, so neither is required alone;
    // an AI draft's wishes are optional: a bare POST drafts with the defaults)
    expect(required.sort()).toEqual(['confirmFile', 'createTicketAiDraft', 'oauthRevoke', 'oauthToken']);
  });
});
