// PATCH (and PUT) and DELETE on /v2/conversationmessages/{id}.json: an agent corrects or removes
// one message; everything but the text (and its files) is the room's record. Every refusal
// answers the one error body and leaves every message row of both installations as it was.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import {
  deliver,
  fromContact,
  listedIds,
  messagePath,
  messageRow,
  messageRows,
  MESSAGES,
  startConversation,
  type MessageRecord,
  type StartedConversation,
} from '../support/conversation-messages';
import { newInstallation, rows } from '../support/db';
import { expectIgnored } from '../support/ignored';
import { refusals } from '../support/refusals';

let site: SeededInstallation;
let other: SeededInstallation;
let key: string;
let conversation: StartedConversation;
let theirs: MessageRecord;
const files = { mine: 0, theirs: 0 };

const rejects = refusals(
  () => messageRows([site.id, other.id]),
  () => key,
);

/** A fresh message of the site's conversation, said by its contact. */
async function newMessage(text = 'My order #1234 is late'): Promise<MessageRecord> {
  const [record] = await deliver(fromContact(conversation, text, { sentAt: '2026-03-01T10:00:00.000Z' }));
  return record!;
}

beforeAll(async () => {
  site = await newInstallation('msg-edit');
  other = await newInstallation('msg-edit-other');
  key = site.users.agent.apiKey;
  conversation = await startConversation(key, { name: 'Ada' });
  [theirs] = (await deliver(
    fromContact(await startConversation(other.users.agent.apiKey, { name: 'Theirs' }), 'Not yours'),
  )) as [MessageRecord];
  const made = await rows<{ id: number }>(
    `INSERT INTO files (installation_id, name, created_by, confirmed_at) VALUES ($1, 'mine.png', $3, now()), ($2, 'theirs.png', NULL, now()) RETURNING id`,
    [site.id, other.id, site.users.agent.id],
  );
  files.mine = made[0]!.id;
  files.theirs = made[1]!.id;
});

describe('PATCH /v2/conversationmessages/{id}.json', () => {
  it('changes the text and answers the record; only the text and the audit columns change', async () => {
    const record = await newMessage();
    const [before] = await rows(`SELECT * FROM conversation_messages WHERE id = $1`, [record.id]);
    const response = await api(messagePath(record.id), {
      method: 'PATCH',
      key,
      body: { conversationmessage: { message: 'My order #[redacted] is late' } },
    });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['conversationmessage', 'included']);
    expect(response.body.included).toEqual({});
    expect(response.body.conversationmessage).toEqual({
      ...record,
      message: 'My order #[redacted] is late',
      updatedAt: expect.any(String),
      updatedBy: { id: site.users.agent.id, type: 'users' },
    });
    expect(response.body.conversationmessage.updatedAt > String(record.updatedAt)).toBe(true);
    const [after] = await rows(`SELECT * FROM conversation_messages WHERE id = $1`, [record.id]);
    expect(after).toEqual({
      ...before,
      message: 'My order #[redacted] is late',
      updated_at: expect.any(Date),
      updated_by: site.users.agent.id,
    });
  });

  it('takes a bare body, and PUT means PATCH; owner and admin may too', async () => {
    const record = await newMessage();
    const bare = await api(messagePath(record.id), {
      method: 'PATCH',
      key: site.users.owner.apiKey,
      body: { message: 'by the owner' },
    });
    expect(bare.status, bare.text).toBe(200);
    expect(bare.body.conversationmessage).toMatchObject({
      message: 'by the owner',
      updatedBy: { id: site.users.owner.id, type: 'users' },
    });
    const put = await api(messagePath(record.id), {
      method: 'PUT',
      key: site.users.admin.apiKey,
      body: { conversationmessage: { message: 'by the admin' } },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.conversationmessage).toMatchObject({
      message: 'by the admin',
      updatedBy: { id: site.users.admin.id, type: 'users' },
    });
    expect(await messageRow(record.id)).toMatchObject({ message: 'by the admin', updated_by: site.users.admin.id });
  });

  it("ignores the room's record sent back (author, contactId, userId, sentAt, roomId, conversation, aiDraft, aiSimilarity, the audit set)", async () => {
    const record = await newMessage('as said');
    const [before] = await rows(
      `SELECT author, contact_id, user_id, sent_at, client_id, conversation_id, ai_draft, ai_similarity, state, created_by FROM conversation_messages WHERE id = $1`,
      [record.id],
    );
    const response = await api(messagePath(record.id), {
      method: 'PATCH',
      key,
      body: {
        conversationmessage: {
          ...record,
          message: 'as corrected',
          author: 'agent',
          contactId: 1,
          userId: site.users.agent.id,
          sentAt: '2020-01-01T00:00:00.000Z',
          roomId: 'forged',
          conversation: { id: 1, type: 'conversations' },
          aiDraft: 'a draft',
          aiSimilarity: 100,
          state: 'deleted',
          createdBy: { id: site.users.owner.id, type: 'users' },
        },
        included: {},
      },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.conversationmessage).toMatchObject({
      message: 'as corrected',
      author: 'contact',
      contactId: conversation.contactId,
      userId: null,
      roomId: record.roomId,
      state: 'active',
    });
    const [after] = await rows(
      `SELECT author, contact_id, user_id, sent_at, client_id, conversation_id, ai_draft, ai_similarity, state, created_by FROM conversation_messages WHERE id = $1`,
      [record.id],
    );
    expect(after).toEqual(before);
    expect((await messageRow(record.id))!.message).toBe('as corrected');
  });

  it('attaches and detaches files of the installation, answering them as written', async () => {
    const record = await newMessage();
    const attached = await api(messagePath(record.id), {
      method: 'PATCH',
      key,
      body: { files: [{ id: files.mine, type: 'files' }] },
    });
    expect(attached.status, attached.text).toBe(200);
    expect(attached.body.conversationmessage.files).toEqual([{ id: files.mine, type: 'files' }]);
    expect(attached.body.included.files).toEqual([expect.objectContaining({ id: files.mine, name: 'mine.png' })]);
    expect(await rows(`SELECT file_id FROM conversation_message_files WHERE message_id = $1`, [record.id])).toEqual([
      { file_id: files.mine },
    ]);

    const detached = await api(messagePath(record.id), {
      method: 'PATCH',
      key,
      body: { files: [{ id: files.mine, delete: true }] },
    });
    expect(detached.status, detached.text).toBe(200);
    expect(detached.body.conversationmessage.files).toEqual([]);
    expect(await rows(`SELECT file_id FROM conversation_message_files WHERE message_id = $1`, [record.id])).toEqual([]);
  });

  it('answers the includes asked for', async () => {
    const record = await newMessage();
    const response = await api(messagePath(record.id), {
      method: 'PATCH',
      key,
      query: { includes: 'users,contacts' },
      body: { message: 'with includes' },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.included.users).toEqual([expect.objectContaining({ id: site.users.agent.id, role: 'agent' })]);
    expect(response.body.included.contacts).toEqual([
      expect.objectContaining({ id: conversation.contactId, name: 'Ada' }),
    ]);
  });
});

describe('PATCH /v2/conversationmessages/{id}.json refused', () => {
  let target: MessageRecord;
  beforeAll(async () => {
    target = await newMessage('untouchable');
  });

  it('an unknown property, in the record or beside the wrapper: ignored and named in X-Ignored-Properties', async () => {
    const ignoring = await newMessage('to be edited, ignoring');
    expectIgnored(
      await api(messagePath(ignoring.id), {
        method: 'PATCH',
        key,
        body: { conversationmessage: { message: 'edited', color: 'red' }, extra: 1 },
      }),
      ['conversationmessage.color', 'extra'],
    );
    expect(
      JSON.stringify(await rows(`SELECT to_jsonb(m) AS row FROM conversation_messages m WHERE id = $1`, [ignoring.id])),
    ).not.toMatch(/color|"red"/);
    // beside a wrong value, an unknown property changes nothing: the 400 names the wrong one
    await rejects(
      messagePath(target.id),
      { method: 'PATCH', body: { text: 'x', message: 5 } },
      400,
      'conversationmessage.message',
    );
  });

  it('a message of the wrong type, null, empty, blank, too long or holding NUL: 400 naming it', async () => {
    for (const message of [5, null, true, ['x'], { text: 'x' }, '', '   \n', 'x'.repeat(10_001), 'a\u0000b']) {
      await rejects(
        messagePath(target.id),
        { method: 'PATCH', body: { conversationmessage: { message } } },
        400,
        'conversationmessage.message',
      );
    }
  });

  it("bad files: not a list, a bad id, another installation's or an unknown file: 400 naming it", async () => {
    await rejects(
      messagePath(target.id),
      { method: 'PATCH', body: { files: 'mine.png' } },
      400,
      'conversationmessage.files',
    );
    await rejects(
      messagePath(target.id),
      { method: 'PATCH', body: { files: [{ id: 'one' }] } },
      400,
      'conversationmessage.files[0].id',
    );
    await rejects(
      messagePath(target.id),
      { method: 'PATCH', body: { files: [{ id: files.theirs }] } },
      400,
      /^conversationmessage\.files\[0\]/,
    );
    await rejects(
      messagePath(target.id),
      { method: 'PATCH', body: { files: [{ id: 2_000_000_000 }] } },
      400,
      /^conversationmessage\.files\[0\]/,
    );
  });

  it('the message stays as it was after every refusal', async () => {
    expect(await messageRow(target.id)).toMatchObject({ message: 'untouchable', updated_by: null, state: 'active' });
  });

  it("another installation's message, a deleted one, an unknown id: 404, nothing changed", async () => {
    await rejects(messagePath(theirs.id), { method: 'PATCH', body: { message: 'mine now' } }, 404, 'id');
    await rejects(messagePath(theirs.id), { method: 'PUT', body: { message: 'mine now' } }, 404, 'id');
    expect((await messageRow(theirs.id))!.message).toBe('Not yours');
    const deleted = await newMessage('deleted already');
    expect((await api(messagePath(deleted.id), { method: 'DELETE', key })).status).toBe(204);
    await rejects(messagePath(deleted.id), { method: 'PATCH', body: { message: 'revived?' } }, 404, 'id');
    await rejects(messagePath(2_000_000_000), { method: 'PATCH', body: { message: 'x' } }, 404, 'id');
  });

  it('an id that is not a positive 32-bit integer: 400 naming it', async () => {
    for (const id of ['abc', '0', '-1', '1.5', '2147483648', '1e3']) {
      await rejects(messagePath(id), { method: 'PATCH', body: { message: 'x' } }, 400, 'id');
    }
  });

  it('a collaborator: 403; no credential: 401', async () => {
    await rejects(
      messagePath(target.id),
      { method: 'PATCH', key: site.users.collaborator.apiKey, body: { message: 'x' } },
      403,
    );
    await rejects(messagePath(target.id), { method: 'PATCH', key: null, body: { message: 'x' } }, 401);
  });

  it('a body that is not JSON: 415; malformed, empty or not an object: 400', async () => {
    await rejects(
      messagePath(target.id),
      { method: 'PATCH', body: 'message=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      415,
      'body',
    );
    await rejects(
      messagePath(target.id),
      { method: 'PATCH', body: JSON.stringify({ message: 'x' }), headers: { 'content-type': 'text/plain' } },
      415,
      'body',
    );
    await rejects(messagePath(target.id), { method: 'PATCH', body: '{"message": ' }, 400, 'body');
    await rejects(messagePath(target.id), { method: 'PATCH', body: '' }, 400, 'body');
    await rejects(messagePath(target.id), { method: 'PATCH', body: '["x"]' }, 400, 'body');
    await rejects(
      messagePath(target.id),
      { method: 'PATCH', body: { conversationmessage: 'x' } },
      400,
      'conversationmessage',
    );
  });
});

describe('DELETE /v2/conversationmessages/{id}.json', () => {
  it('soft-deletes: 204 with no body, then gone from the list, kept in the database and found by a state filter', async () => {
    const record = await newMessage('to be removed');
    const deleted = await api(messagePath(record.id), { method: 'DELETE', key: site.users.admin.apiKey });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');

    const listed = await api(MESSAGES, { key, query: { filter: { id: record.id } } });
    expect(listedIds(listed.body)).toEqual([]);
    const withState = await api(MESSAGES, { key, query: { filter: { id: record.id, state: 'deleted' } } });
    expect(withState.body.conversationmessages).toEqual([
      expect.objectContaining({
        id: record.id,
        message: 'to be removed',
        state: 'deleted',
        deletedBy: { id: site.users.admin.id, type: 'users' },
      }),
    ]);
    expect(withState.body.conversationmessages[0].deletedAt).toMatch(/Z$/);
    expect(await messageRow(record.id)).toMatchObject({
      message: 'to be removed',
      state: 'deleted',
      deleted_by: site.users.admin.id,
      deleted_at: expect.any(Date),
    });

    // Once deleted it is not there to delete again.
    await rejects(messagePath(record.id), { method: 'DELETE' }, 404, 'id');
  });

  it("another installation's message or an unknown id: 404, nothing changed", async () => {
    await rejects(messagePath(theirs.id), { method: 'DELETE' }, 404, 'id');
    expect(await messageRow(theirs.id)).toMatchObject({ state: 'active', deleted_at: null });
    await rejects(messagePath(2_000_000_000), { method: 'DELETE' }, 404, 'id');
  });

  it('a bad id: 400; a collaborator: 403; no credential: 401', async () => {
    const record = await newMessage('staying');
    await rejects(messagePath('abc'), { method: 'DELETE' }, 400, 'id');
    await rejects(messagePath(0), { method: 'DELETE' }, 400, 'id');
    await rejects(messagePath(record.id), { method: 'DELETE', key: site.users.collaborator.apiKey }, 403);
    await rejects(messagePath(record.id), { method: 'DELETE', key: null }, 401);
    expect((await messageRow(record.id))!.state).toBe('active');
  });
});
