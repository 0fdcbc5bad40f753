// The attach rule wherever a file is linked: a thread entry, a canned response, a chat message.
// An agent who links a file uploaded by someone else, attached to a ticket they cannot see, would
// read its name, type and size in GET /v2/files.json (every teammate sees the files of canned
// responses and chat messages): each place refuses it, writing nothing. The uploader links their
// own confirmed files; an owner or admin any confirmed file of the installation.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import {
  deliver,
  fromContact,
  messagePath,
  startConversation,
  type MessageRecord,
} from '../support/conversation-messages';
import { newInstallation, rows } from '../support/db';
import { fileRef, uploadedFile } from '../support/files';
import { refusals } from '../support/refusals';

let site: SeededInstallation;
let owner: string;
let admin: string;
let agent: string;
let message: MessageRecord;
let canned: number;
let inbox: number;
let customer: number;
const file = { hidden: 0, mine: 0, pending: 0 };

/** Every link to a file and every canned response of the installation. */
async function snapshot() {
  return {
    responses: await rows(
      'SELECT id, name, updated_at::text FROM canned_responses WHERE installation_id = $1 ORDER BY id',
      [site.id],
    ),
    cannedLinks: await rows(
      'SELECT canned_response_id, file_id FROM canned_response_files WHERE installation_id = $1 ORDER BY 1, 2',
      [site.id],
    ),
    messageLinks: await rows(
      'SELECT message_id, file_id FROM conversation_message_files WHERE installation_id = $1 ORDER BY 1, 2',
      [site.id],
    ),
    entryLinks: await rows(
      'SELECT message_id, file_id FROM ticket_message_files WHERE installation_id = $1 ORDER BY 1, 2',
      [site.id],
    ),
  };
}

const rejects = refusals(snapshot, () => agent);
const cannedPath = (id: number) => `/v2/cannedresponses/${id}.json`;
const listedFiles = async (key: string) =>
  ((await api('/v2/files.json', { key })).body.files as { id: number }[]).map((f) => f.id);

beforeAll(async () => {
  site = await newInstallation('file-links');
  owner = site.users.owner.apiKey;
  admin = site.users.admin.apiKey;
  agent = site.users.agent.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: owner })).body.inboxes[0].id;
  const hiddenInbox = (
    await api('/v2/inboxes.json', {
      method: 'POST',
      key: owner,
      body: { name: 'Payroll', email: 'payroll@file-links.test' },
    })
  ).body.inbox.id;
  customer = (await api('/v2/customers.json', { method: 'POST', key: owner, body: { email: 'staff@file-links.test' } }))
    .body.customer.id;
  file.hidden = await uploadedFile(admin, 'salaries', { filename: 'salaries-2026.csv', mimeType: 'text/csv' });
  const ticket = await api('/v2/tickets.json', {
    method: 'POST',
    key: admin,
    body: { subject: 'Pay rises', inbox: hiddenInbox, customer, message: 'attached', files: [{ id: file.hidden }] },
  });
  expect(ticket.status, ticket.text).toBe(201);
  file.mine = await uploadedFile(agent, 'my notes');
  file.pending = (await fileRef(agent, { filename: 'half.txt', mimeType: 'text/plain' })).body.file.id;
  canned = (
    await api('/v2/cannedresponses.json', { method: 'POST', key: agent, body: { name: 'Mine', reply: 'Hello' } })
  ).body.cannedresponse.id;
  [message] = (await deliver(
    fromContact(await startConversation(agent, { name: 'Ada' }), 'Can I see the pay rises?'),
  )) as [MessageRecord];
});

describe('an agent linking a file of a ticket they cannot see, uploaded by someone else', () => {
  it('does not see it to begin with', async () => {
    expect(await listedFiles(agent)).not.toContain(file.hidden);
    expect((await api(`/v2/files/${file.hidden}.json`, { key: agent })).status).toBe(404);
  });

  it('is refused by a canned response create, PATCH and PUT: 400 naming the entry, nothing written', async () => {
    const refusal = /no confirmed file \d+ of yours/;
    expect(
      (
        await rejects(
          '/v2/cannedresponses.json',
          { method: 'POST', body: { cannedresponse: { name: 'Leak', reply: 'x', files: [{ id: file.hidden }] } } },
          400,
          'cannedresponse.files[0].id',
        )
      ).detail,
    ).toMatch(refusal);
    await rejects(
      cannedPath(canned),
      { method: 'PATCH', body: { name: 'Renamed', files: [{ id: file.mine }, { id: file.hidden, type: 'files' }] } },
      400,
      'cannedresponse.files[1].id',
    );
    await rejects(
      cannedPath(canned),
      { method: 'PUT', body: { cannedresponse: { files: [{ id: file.hidden }] } } },
      400,
      'cannedresponse.files[0].id',
    );
  });

  it('is refused by a conversation message PATCH: 400 naming the entry, nothing written', async () => {
    await rejects(
      messagePath(message.id),
      { method: 'PATCH', body: { conversationmessage: { message: 'see file', files: [{ id: file.hidden }] } } },
      400,
      'conversationmessage.files[0].id',
    );
  });

  it('is refused by a reply on a ticket they see, as before', async () => {
    const ticket = (
      await api('/v2/tickets.json', {
        method: 'POST',
        key: agent,
        body: { subject: 'Visible', inbox, customer, message: 'x' },
      })
    ).body.ticket;
    await rejects(
      `/v2/tickets/${ticket.id}/messages.json`,
      { method: 'POST', body: { message: 'x', files: [{ id: file.hidden }] } },
      400,
      'message.files[0]',
    );
  });

  it('leaves the file out of their reach after every refusal', async () => {
    expect(await listedFiles(agent)).not.toContain(file.hidden);
  });
});

describe('who may link', () => {
  it('refuses even the uploader a file not confirmed yet', async () => {
    await rejects(
      cannedPath(canned),
      { method: 'PATCH', body: { files: [{ id: file.pending }] } },
      400,
      'cannedresponse.files[0].id',
    );
    await rejects(
      messagePath(message.id),
      { method: 'PATCH', body: { files: [{ id: file.pending }] } },
      400,
      'conversationmessage.files[0].id',
    );
  });

  it('lets the uploader link their own confirmed file', async () => {
    const created = await api('/v2/cannedresponses.json', {
      method: 'POST',
      key: agent,
      body: { name: 'With notes', reply: 'x', files: [{ id: file.mine }] },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.cannedresponse.files).toEqual([{ id: file.mine, type: 'files' }]);
    const patched = await api(messagePath(message.id), {
      method: 'PATCH',
      key: agent,
      body: { files: [{ id: file.mine }] },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.conversationmessage.files).toEqual([{ id: file.mine, type: 'files' }]);
  });

  it('lets an owner or admin link any confirmed file, which an agent may then send back as it is', async () => {
    const byAdmin = await api(cannedPath(canned), {
      method: 'PATCH',
      key: admin,
      body: { files: [{ id: file.hidden }] },
    });
    expect(byAdmin.status, byAdmin.text).toBe(200);
    const byOwner = await api(messagePath(message.id), {
      method: 'PATCH',
      key: owner,
      body: { files: [{ id: file.hidden }] },
    });
    expect(byOwner.status, byOwner.text).toBe(200);
    const both = [file.hidden, file.mine].sort((a, b) => a - b).map((id) => ({ id, type: 'files' }));
    expect(byOwner.body.conversationmessage.files).toEqual(both);

    const sentBack = await api(cannedPath(canned), {
      method: 'PATCH',
      key: agent,
      body: { name: 'Mine, renamed', files: [{ id: file.hidden }, { id: file.mine }] },
    });
    expect(sentBack.status, sentBack.text).toBe(200);
    expect(sentBack.body.cannedresponse.files).toEqual(both);
  });
});
