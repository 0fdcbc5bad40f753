// The platform's three-step upload on R2 (in workerd through Miniflare): the ref's form, the
// multipart POST of the bytes to the Worker's own url, the confirmation; files attached to replies
// and new tickets, downloaded by those who see the ticket, and unconfirmed uploads swept by the cron.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { runCron } from '../support/cron';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { confirmFile, fileRef, uploadedFile, uploadTo } from '../support/files';
import { checkedFetch } from '../support/contract';

let site: SeededInstallation;
let owner: string;
let agent: string;
let inbox: number;
let hiddenInbox: number;
let customer: number;

beforeAll(async () => {
  site = await newInstallation('files');
  owner = site.users.owner.apiKey;
  agent = site.users.agent.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: owner })).body.inboxes[0].id;
  hiddenInbox = (
    await api('/v2/inboxes.json', {
      method: 'POST',
      key: owner,
      body: { name: 'Private', email: 'private@files.test' },
    })
  ).body.inbox.id;
  customer = (await api('/v2/customers.json', { method: 'POST', key: owner, body: { email: 'files@files.test' } })).body
    .customer.id;
});

const ref = (file: Record<string, unknown>, key = agent) => fileRef(key, file);
const upload = uploadTo;
const confirm = (id: number, key = agent, body?: unknown) => confirmFile(key, id, body);
const uploaded = (bytes: string, file?: Record<string, unknown>, key = agent) => uploadedFile(key, bytes, file);

describe('the three steps', () => {
  it("hands out a form for the Worker's own url, takes the bytes once, and confirms", async () => {
    const started = await ref({ filename: 'invoice ü.pdf', mimeType: 'application/pdf', disposition: 'attachment' });
    expect(started.status, started.text).toBe(201);
    const { url, params, file } = started.body;
    expect(new URL(url).pathname).toBe('/v2/files/upload');
    expect(params).toMatchObject({
      'Content-Type': 'application/pdf',
      bucket: 'helpdesk-files',
      success_action_status: '201',
    });
    expect(params.key).toMatch(new RegExp(`^i${site.id}/f${file.id}/`));
    expect(file).toMatchObject({
      filename: 'invoice ü.pdf',
      mimeType: 'application/pdf',
      disposition: 'attachment',
      size: 0,
      uploadedAt: null,
      confirmedAt: null,
    });
    const [row] = await rows('SELECT upload_token_hash FROM files WHERE id = $1', [file.id]);
    expect(row!.upload_token_hash).not.toContain(params['x-amz-signature']);

    expectError(await confirm(file.id), 409, 'id');
    const bytes = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0, 1, 2, 255]);
    const posted = await upload(started.body, bytes, 'invoice.pdf');
    expect(posted.status, await posted.clone().text()).toBe(201);
    expect((await upload(started.body, bytes)).status).toBe(403);

    const confirmed = await confirm(file.id, agent, { url, params, file: { ...file, filename: 'invoice 2026.pdf' } });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.file).toMatchObject({ filename: 'invoice 2026.pdf', size: 8 });
    expect(confirmed.body.file.confirmedAt).toEqual(expect.any(String));
    expect((await confirm(file.id)).status).toBe(200);

    const listed = await api('/v2/files.json', { key: agent });
    expect(listed.status).toBe(200);
    expect(listed.body.files.map((f: any) => f.id)).toContain(file.id);
    expect(listed.body.pagination.records).toBeGreaterThanOrEqual(1);
  });

  it('refuses forged, expired, mistyped, empty and oversized uploads, storing nothing', async () => {
    const started = (await ref({ filename: 'a.txt', mimeType: 'text/plain' })).body;
    expect((await upload(started, 'hi', 'a.txt', { 'x-amz-signature': '0'.repeat(64) })).status).toBe(403);
    expect(
      (await upload(started, 'hi', 'a.txt', { policy: btoa('{"expiration":"2999-01-01T00:00:00Z"}') })).status,
    ).toBe(403);
    expect((await upload(started, 'hi', 'a.txt', { key: `i${site.id}/f1/000000000000000000` })).status).toBe(403);
    expect((await upload(started, 'hi', 'a.txt', { key: '../../etc/passwd' })).status).toBe(403);
    expect((await upload(started, 'hi', 'a.txt', { 'Content-Type': 'text/html' })).status).toBe(400);
    expect((await upload(started, '')).status).toBe(400);
    expect(
      (await checkedFetch(started.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }))
        .status,
    ).toBe(415);
    const noFile = new FormData();
    for (const [field, value] of Object.entries(started.params as Record<string, string>)) noFile.append(field, value);
    expect((await checkedFetch(started.url, { method: 'POST', body: noFile })).status).toBe(400);
    const big = await upload(started, new Uint8Array(25 * 1024 * 1024 + 1));
    expect(big.status).toBe(413);
    await rows("UPDATE files SET upload_expires_at = now() - interval '1 minute' WHERE id = $1", [started.file.id]);
    expect((await upload(started, 'hi')).status).toBe(403);
    expect(await rows('SELECT uploaded_at, size::int AS size FROM files WHERE id = $1', [started.file.id])).toEqual([
      { uploaded_at: null, size: 0 },
    ]);
  });

  it("refuses bad descriptions and another's confirmation", async () => {
    expectError(await ref({ filename: '', mimeType: 'text/plain' }), 400, /filename/);
    expectError(await ref({ filename: '../x', mimeType: 'text/plain' }), 400, /filename/);
    expectError(await ref({ filename: 'x', mimeType: 'not a type' }), 400, /mimeType/);
    expectError(await ref({ filename: 'x', mimeType: 'text/plain', disposition: 'inline' }), 400, /disposition/);
    // a property the platform's file does not have is ignored (api-conventions), never stored
    const ignored = await ref({ filename: 'x', mimeType: 'text/plain', colour: 'red' });
    expect(ignored.status, ignored.text).toBe(201);
    expect(ignored.body.file).not.toHaveProperty('colour');
    const started = (await ref({ filename: 'a.txt', mimeType: 'text/plain' })).body;
    await upload(started, 'hi');
    expectError(await confirm(started.file.id, site.users.collaborator.apiKey), 404);
    expectError(await confirm(started.file.id, agent, { file: { mimeType: 'image/png' } }), 400, 'file.mimeType');
    const stranger = await newInstallation('files-other');
    expectError(await confirm(started.file.id, stranger.users.owner.apiKey), 404);
  });
});

describe('attachments', () => {
  it('attaches confirmed files to a reply and to a new ticket, and serves them to those who see the ticket', async () => {
    const first = await uploaded('first words', { filename: 'first.txt', mimeType: 'text/plain' });
    const created = await api('/v2/tickets.json', {
      method: 'POST',
      key: agent,
      body: { subject: 'With a file', inbox, customer, message: 'see attached', files: [{ id: first }] },
    });
    expect(created.status, created.text).toBe(201);
    const ticket = created.body.ticket.id;
    const page = await api(`/v2/tickets/${ticket}/messages.json`, { key: agent, query: { includes: 'files' } });
    expect(page.body.messages[0].files).toEqual([{ id: first, type: 'files' }]);
    expect(page.body.included.files[0]).toMatchObject({ filename: 'first.txt', mimeType: 'text/plain' });

    const html = await uploaded('<html><script>alert(1)</script></html>', {
      filename: 'page.html',
      mimeType: 'text/html',
    });
    const reply = await api(`/v2/tickets/${ticket}/messages.json`, {
      method: 'POST',
      key: agent,
      body: { message: 'and this', files: [{ id: html, type: 'files' }] },
    });
    expect(reply.status, reply.text).toBe(201);

    const download = await api(`/v2/tickets/${ticket}/files/${html}/download`, { key: agent });
    expect(download.status).toBe(200);
    expect(download.text).toBe('<html><script>alert(1)</script></html>');
    expect(download.headers.get('content-type')).toBe('text/html');
    expect(download.headers.get('content-disposition')).toBe(
      'attachment; filename="page.html"; filename*=UTF-8\'\'page.html',
    );
    expect(download.headers.get('x-content-type-options')).toBe('nosniff');
    expect(download.headers.get('content-security-policy')).toContain('sandbox');

    expect((await search(`onlyWithAttachment=true`)).body.tickets.map((t: any) => t.id)).toEqual([ticket]);
    // another ticket's file, another installation, a ticket the caller does not see: 404
    const other = (
      await api('/v2/tickets.json', {
        method: 'POST',
        key: owner,
        body: { subject: 'Plain', inbox, customer, message: 'x' },
      })
    ).body.ticket.id;
    expect((await api(`/v2/tickets/${other}/files/${html}/download`, { key: agent })).status).toBe(404);
    const stranger = await newInstallation('files-stranger');
    expect(
      (await api(`/v2/tickets/${ticket}/files/${html}/download`, { key: stranger.users.owner.apiKey })).status,
    ).toBe(404);
    await api(`/v2/tickets/${ticket}.json`, { method: 'PATCH', key: owner, body: { ticket: { inbox: hiddenInbox } } });
    expect((await api(`/v2/tickets/${ticket}/files/${html}/download`, { key: agent })).status).toBe(404);
    expect((await api(`/v2/tickets/${ticket}/files/${html}/download`, { key: owner })).status).toBe(200);
  });

  it("refuses files that are not confirmed, not the caller's, or not there, writing nothing", async () => {
    const ticket = (
      await api('/v2/tickets.json', {
        method: 'POST',
        key: agent,
        body: { subject: 'Refusals', inbox, customer, message: 'x' },
      })
    ).body.ticket.id;
    const pending = (await ref({ filename: 'p.txt', mimeType: 'text/plain' })).body.file.id;
    const owners = await uploaded('owner', { filename: 'o.txt', mimeType: 'text/plain' }, owner);
    const before = await rows('SELECT count(*)::int AS n FROM ticket_messages WHERE ticket_id = $1', [ticket]);
    const reply = (files: unknown[]) =>
      api(`/v2/tickets/${ticket}/messages.json`, { method: 'POST', key: agent, body: { message: 'x', files } });
    expectError(await reply([{ id: pending }]), 400, 'message.files[0]');
    expectError(await reply([{ id: 999999 }]), 400, 'message.files[0]');
    expectError(await reply([{ id: owners }]), 400, 'message.files[0]');
    expectError(await reply(Array.from({ length: 21 }, () => ({ id: owners }))), 400, /files/);
    expect(await rows('SELECT count(*)::int AS n FROM ticket_messages WHERE ticket_id = $1', [ticket])).toEqual(before);
    expectError(
      await api('/v2/tickets.json', {
        method: 'POST',
        key: agent,
        body: { subject: 'No message', inbox, customer, files: [{ id: owners }] },
      }),
      400,
      'ticket.files',
    );
  });
});

describe('the sweep', () => {
  it('removes uploads never confirmed after a day, and only those', async () => {
    const pending = (await ref({ filename: 'old.txt', mimeType: 'text/plain' })).body;
    expect((await upload(pending, 'old')).status).toBe(201);
    const kept = await uploaded('kept');
    await runCron(new Date(Date.now() + 25 * 3600_000));
    expect((await rows('SELECT state FROM files WHERE id = $1', [pending.file.id]))[0]!.state).toBe('deleted');
    expect((await rows('SELECT state FROM files WHERE id = $1', [kept]))[0]!.state).toBe('active');
    expectError(await confirm(pending.file.id), 404);
  });
});

const search = (query: string) => api(`/v2/search/tickets.json?${query}`, { key: agent });
