// PATCH /v2/conversationmessages/update.json and DELETE /v2/conversationmessages/delete.json:
// every live message of the caller's installation that `filter` selects (rule 9, part 2's
// names), in one statement. Refusals answer the one error body and change no row of either
// installation.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import {
  BULK_DELETE,
  BULK_UPDATE,
  deliver,
  fromAgent,
  fromContact,
  listedIds,
  MESSAGES,
  messageRows,
  startConversation,
  type StartedConversation,
} from '../support/conversation-messages';
import { newInstallation, rows } from '../support/db';
import { refusals } from '../support/refusals';

let site: SeededInstallation;
let other: SeededInstallation;
let key: string;
let mine: StartedConversation;
let theirs: StartedConversation;

const rejects = refusals(
  () => messageRows([site.id, other.id]),
  () => key,
);

/** A fresh word that only this test's messages hold, so filters select exactly them. */
let words = 0;
const word = () => `w${Date.now().toString(36)}${++words}`;

const stored = (ids: number[]) =>
  rows<{
    id: number;
    message: string;
    state: string;
    updated_by: number | null;
    deleted_by: number | null;
    deleted: boolean;
  }>(
    `SELECT id, message, state, updated_by, deleted_by, deleted_at IS NOT NULL AS deleted FROM conversation_messages WHERE id = ANY($1) ORDER BY id`,
    [ids],
  );

beforeAll(async () => {
  site = await newInstallation('msg-bulk');
  other = await newInstallation('msg-bulk-other');
  key = site.users.agent.apiKey;
  mine = await startConversation(key, { name: 'Ada' });
  theirs = await startConversation(other.users.agent.apiKey, { name: 'Theo' });
});

describe('PATCH /v2/conversationmessages/update.json', () => {
  it('sets the text of every live message the filter selects, and answers the bulk result', async () => {
    const w = word();
    const [a, b, keep] = await deliver(
      fromContact(mine, `${w} card 4111 1111 1111 1111`),
      fromContact(mine, `${w} card again`),
      fromAgent(mine, site.users.agent.id, 'unrelated'),
    );
    const response = await api(BULK_UPDATE, {
      method: 'PATCH',
      key,
      query: { filter: { message: { $contains: w } } },
      body: { conversationmessage: { message: '[redacted]' } },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ affected: 2, ids: [a!.id, b!.id], jobId: null, dryRun: false });
    expect(await stored([a!.id, b!.id, keep!.id])).toEqual([
      {
        id: a!.id,
        message: '[redacted]',
        state: 'active',
        updated_by: site.users.agent.id,
        deleted_by: null,
        deleted: false,
      },
      {
        id: b!.id,
        message: '[redacted]',
        state: 'active',
        updated_by: site.users.agent.id,
        deleted_by: null,
        deleted: false,
      },
      {
        id: keep!.id,
        message: 'unrelated',
        state: 'active',
        updated_by: site.users.agent.id,
        deleted_by: null,
        deleted: false,
      },
    ]);
  });

  it('takes a bare body too, and selects by contactId', async () => {
    const conversation = await startConversation(key, { name: 'Bo' });
    const [one] = await deliver(fromContact(conversation, 'from Bo'));
    const response = await api(BULK_UPDATE, {
      method: 'PATCH',
      key: site.users.admin.apiKey,
      query: { filter: { contactId: conversation.contactId } },
      body: { message: 'Bo, edited' },
    });
    expect(response.body).toEqual({ affected: 1, ids: [one!.id], jobId: null, dryRun: false });
    expect((await stored([one!.id]))[0]).toMatchObject({ message: 'Bo, edited', updated_by: site.users.admin.id });
  });

  it("never touches another installation's messages, even when the filter names them", async () => {
    const w = word();
    const [theirsMessage] = await deliver(fromContact(theirs, `${w} theirs`));
    const before = await messageRows([other.id]);
    for (const filter of [{ message: { $contains: w } }, { id: theirsMessage!.id }, { contactId: theirs.contactId }]) {
      const response = await api(BULK_UPDATE, {
        method: 'PATCH',
        key,
        query: { filter },
        body: { message: 'hijacked' },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({ affected: 0, ids: [], jobId: null, dryRun: false });
    }
    expect(await messageRows([other.id])).toEqual(before);
  });

  it('leaves deleted messages alone, even when the filter asks for them', async () => {
    const w = word();
    const [gone] = await deliver(fromContact(mine, `${w} deleted`));
    await api(BULK_DELETE, { method: 'DELETE', key, query: { filter: { id: gone!.id } } });
    const response = await api(BULK_UPDATE, {
      method: 'PATCH',
      key,
      query: { filter: { id: gone!.id, state: 'deleted' } },
      body: { message: 'revived?' },
    });
    expect(response.body).toEqual({ affected: 0, ids: [], jobId: null, dryRun: false });
    expect((await stored([gone!.id]))[0]).toMatchObject({ message: `${w} deleted`, state: 'deleted' });
  });

  it("ignores the room's record sent back with the text, as a single PATCH does: only the text changes", async () => {
    const w = word();
    const [one] = await deliver(fromContact(mine, `${w} original`));
    const response = await api(BULK_UPDATE, {
      method: 'PATCH',
      key,
      query: { filter: { id: one!.id } },
      body: {
        conversationmessage: {
          ...one,
          message: `${w} corrected`,
          author: 'agent',
          sentAt: '2020-01-01T00:00:00.000Z',
          userId: site.users.owner.id,
        },
      },
    });
    expect(response.body).toEqual({ affected: 1, ids: [one!.id], jobId: null, dryRun: false });
    const [row] = await rows(
      `SELECT message, author, user_id, contact_id, sent_at = $2::timestamptz AS same_time FROM conversation_messages WHERE id = $1`,
      [one!.id, one!.sentAt],
    );
    expect(row).toEqual({
      message: `${w} corrected`,
      author: 'contact',
      user_id: null,
      contact_id: mine.contactId,
      same_time: true,
    });
  });

  it('a filter matching nothing: 200 with nothing affected', async () => {
    const response = await api(BULK_UPDATE, {
      method: 'PATCH',
      key,
      query: { filter: { message: word() } },
      body: { message: 'nobody' },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ affected: 0, ids: [], jobId: null, dryRun: false });
  });
});

describe('PATCH /v2/conversationmessages/update.json refused, nothing changed', () => {
  const body = { conversationmessage: { message: 'changed' } };

  it('no filter, an empty one, an unknown name, a bad value or one that is not JSON: 400 naming filter', async () => {
    await deliver(fromContact(mine, 'a message that must stay as it is'));
    await rejects(BULK_UPDATE, { method: 'PATCH', body }, 400, 'filter');
    await rejects(BULK_UPDATE, { method: 'PATCH', query: { filter: {} }, body }, 400, 'filter');
    await rejects(
      BULK_UPDATE,
      { method: 'PATCH', query: { filter: { conversationToken: mine.token } }, body },
      400,
      /filter/,
    );
    await rejects(BULK_UPDATE, { method: 'PATCH', query: { filter: { roomId: 'x' } }, body }, 400, /filter/);
    await rejects(BULK_UPDATE, { method: 'PATCH', query: { filter: { id: 'one' } }, body }, 400, /filter/);
    await rejects(
      BULK_UPDATE,
      { method: 'PATCH', query: { filter: { contactId: { $nope: 1 } } }, body },
      400,
      /filter/,
    );
    await rejects(BULK_UPDATE, { method: 'PATCH', query: { filter: '{"id": ' }, body }, 400, /filter/);
  });

  it("wrong types, blank or long text, nothing to set (the room's own properties or unknown ones alone set nothing): 400 naming them", async () => {
    const filter = { contactId: mine.contactId };
    await rejects(
      BULK_UPDATE,
      { method: 'PATCH', query: { filter }, body: { conversationmessage: { sentAt: '2026-01-01T00:00:00Z' } } },
      400,
      'conversationmessage',
    );
    // an unknown property is ignored, which leaves nothing to set
    await rejects(
      BULK_UPDATE,
      { method: 'PATCH', query: { filter }, body: { conversationmessage: { color: 'red' } } },
      400,
      'conversationmessage',
    );
    await rejects(
      BULK_UPDATE,
      { method: 'PATCH', query: { filter }, body: { conversationmessage: { message: 42 } } },
      400,
      /message/,
    );
    await rejects(
      BULK_UPDATE,
      { method: 'PATCH', query: { filter }, body: { conversationmessage: { message: '   ' } } },
      400,
      /message/,
    );
    await rejects(
      BULK_UPDATE,
      { method: 'PATCH', query: { filter }, body: { conversationmessage: { message: 'x'.repeat(10_001) } } },
      400,
      /message/,
    );
    await rejects(BULK_UPDATE, { method: 'PATCH', query: { filter }, body: { conversationmessage: {} } }, 400);
  });

  it('malformed JSON: 400; not JSON: 415', async () => {
    const filter = { contactId: mine.contactId };
    await rejects(
      BULK_UPDATE,
      { method: 'PATCH', query: { filter }, body: '{"message": ', headers: { 'content-type': 'application/json' } },
      400,
    );
    await rejects(
      BULK_UPDATE,
      {
        method: 'PATCH',
        query: { filter },
        body: 'message=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      },
      415,
    );
  });

  it('a collaborator: 403; no credential or a foreign one: 401', async () => {
    const filter = { contactId: mine.contactId };
    await rejects(BULK_UPDATE, { method: 'PATCH', key: site.users.collaborator.apiKey, query: { filter }, body }, 403);
    await rejects(BULK_UPDATE, { method: 'PATCH', key: '', query: { filter }, body }, 401);
    await rejects(BULK_UPDATE, { method: 'PATCH', key: 'not-a-key', query: { filter }, body }, 401);
  });
});

describe('DELETE /v2/conversationmessages/delete.json', () => {
  it('soft-deletes every live message the filter selects: gone from the list, kept in the database', async () => {
    const w = word();
    const [a, b, keep] = await deliver(
      fromContact(mine, `${w} one`),
      fromAgent(mine, site.users.agent.id, `${w} two`),
      fromContact(mine, 'stays'),
    );
    const response = await api(BULK_DELETE, {
      method: 'DELETE',
      key,
      query: { filter: { message: { $contains: w } } },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ affected: 2, ids: [a!.id, b!.id], jobId: null, dryRun: false });
    expect(await stored([a!.id, b!.id, keep!.id])).toEqual([
      {
        id: a!.id,
        message: `${w} one`,
        state: 'deleted',
        updated_by: expect.anything(),
        deleted_by: site.users.agent.id,
        deleted: true,
      },
      {
        id: b!.id,
        message: `${w} two`,
        state: 'deleted',
        updated_by: expect.anything(),
        deleted_by: site.users.agent.id,
        deleted: true,
      },
      { id: keep!.id, message: 'stays', state: 'active', updated_by: null, deleted_by: null, deleted: false },
    ]);
    const listed = await api(MESSAGES, { key, query: { filter: { message: { $contains: w } } } });
    expect(listedIds(listed.body)).toEqual([]);
    const deleted = await api(MESSAGES, { key, query: { filter: { message: { $contains: w }, state: 'deleted' } } });
    expect(listedIds(deleted.body)).toEqual([a!.id, b!.id]);
    // Deleting again affects nothing.
    const again = await api(BULK_DELETE, { method: 'DELETE', key, query: { filter: { message: { $contains: w } } } });
    expect(again.body).toEqual({ affected: 0, ids: [], jobId: null, dryRun: false });
  });

  it("never deletes another installation's messages", async () => {
    const w = word();
    const [theirsMessage] = await deliver(fromContact(theirs, `${w} theirs`));
    const before = await messageRows([other.id]);
    for (const filter of [{ message: { $contains: w } }, { id: theirsMessage!.id }]) {
      const response = await api(BULK_DELETE, { method: 'DELETE', key: site.users.owner.apiKey, query: { filter } });
      expect(response.body).toEqual({ affected: 0, ids: [], jobId: null, dryRun: false });
    }
    expect(await messageRows([other.id])).toEqual(before);
  });

  it('refused without a usable filter, for a collaborator or without a credential: nothing deleted', async () => {
    await deliver(fromContact(mine, 'must survive'));
    await rejects(BULK_DELETE, { method: 'DELETE' }, 400, 'filter');
    await rejects(BULK_DELETE, { method: 'DELETE', query: { filter: {} } }, 400, 'filter');
    await rejects(BULK_DELETE, { method: 'DELETE', query: { filter: { author: 'contact' } } }, 400, /filter/);
    await rejects(BULK_DELETE, { method: 'DELETE', query: { filter: 'everything' } }, 400, /filter/);
    await rejects(
      BULK_DELETE,
      { method: 'DELETE', key: site.users.collaborator.apiKey, query: { filter: { contactId: mine.contactId } } },
      403,
    );
    await rejects(BULK_DELETE, { method: 'DELETE', key: '', query: { filter: { contactId: mine.contactId } } }, 401);
  });
});
