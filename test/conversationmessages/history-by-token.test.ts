// GET /v2/conversationmessages/history/{token}.json: public, the conversation's token in the
// path is the credential (rule 7). One conversation's live messages, with the list's paging;
// every token that opens nothing is the same 404, never a 500.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import {
  deliver,
  fromAgent,
  fromContact,
  historyPath,
  messagePath,
  startConversation,
  type MessageRecord,
  type StartedConversation,
} from '../support/conversation-messages';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';

let site: SeededInstallation;
let other: SeededInstallation;
let mine: StartedConversation;
let sibling: StartedConversation;
let theirs: StartedConversation;
let said: MessageRecord[];

const at = (minute: number) => new Date(Date.UTC(2026, 4, 2, 9, minute)).toISOString();
const texts = (body: { conversationmessages: { message: string }[] }) =>
  body.conversationmessages.map((m) => m.message);

beforeAll(async () => {
  site = await newInstallation('history');
  other = await newInstallation('history-other');
  mine = await startConversation(site.users.agent.apiKey, { name: 'Ada' });
  sibling = await startConversation(site.users.agent.apiKey, { name: 'Bo' });
  theirs = await startConversation(other.users.agent.apiKey, { name: 'Theo' });
  said = await deliver(
    fromContact(mine, 'Hi, my parcel is late', { sentAt: at(0) }),
    fromAgent(mine, site.users.agent.id, 'Let me look', { sentAt: at(1) }),
    fromContact(mine, 'Thanks', { sentAt: at(2) }),
    fromContact(mine, 'Oops, wrong window', { sentAt: at(3) }),
  );
  await deliver(
    fromContact(sibling, 'Another conversation of the same site', { sentAt: at(0) }),
    fromContact(theirs, 'Another site', { sentAt: at(0) }),
  );
  const removed = await api(messagePath(said[3]!.id), { method: 'DELETE', key: site.users.agent.apiKey });
  expect(removed.status, removed.text).toBe(204);
});

describe('GET /v2/conversationmessages/history/{token}.json', () => {
  it("needs no credential: the token opens that conversation's live messages, in order", async () => {
    const response = await api(historyPath(mine.token));
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['conversationmessages', 'included', 'meta', 'pagination']);
    expect(texts(response.body)).toEqual(['Hi, my parcel is late', 'Let me look', 'Thanks']);
    expect(response.body.conversationmessages[1]).toMatchObject({
      id: said[1]!.id,
      author: 'agent',
      userId: site.users.agent.id,
      roomId: said[1]!.roomId,
    });
    expect(response.body.meta.page).toMatchObject({ page: 1, count: 3, hasMore: false });
  });

  it('answers the same with an API key of any installation: the token alone decides', async () => {
    for (const key of [site.users.collaborator.apiKey, other.users.owner.apiKey]) {
      const response = await api(historyPath(mine.token), { key });
      expect(response.status, response.text).toBe(200);
      expect(texts(response.body)).toEqual(['Hi, my parcel is late', 'Let me look', 'Thanks']);
    }
  });

  it("never shows another conversation's messages, of the same installation or another", async () => {
    expect(texts((await api(historyPath(sibling.token))).body)).toEqual(['Another conversation of the same site']);
    expect(texts((await api(historyPath(theirs.token))).body)).toEqual(['Another site']);
    const filtered = await api(historyPath(mine.token), { query: { filter: { message: 'Another site' } } });
    expect(filtered.status, filtered.text).toBe(200);
    expect(filtered.body.conversationmessages).toEqual([]);
    const byId = await api(historyPath(mine.token), { query: { filter: { contactId: theirs.contactId } } });
    expect(byId.body.conversationmessages).toEqual([]);
  });

  it('pages and orders like the list', async () => {
    const page = await api(historyPath(mine.token), { query: { pageSize: 2, page: 2 } });
    expect(page.status, page.text).toBe(200);
    expect(texts(page.body)).toEqual(['Thanks']);
    expect(page.body.meta.page).toMatchObject({ page: 2, pageSize: 2, count: 3, pages: 2, hasMore: false });
    const newest = await api(historyPath(mine.token), { query: { orderBy: 'id', orderMode: 'desc', pageSize: 1 } });
    expect(texts(newest.body)).toEqual(['Thanks']);
  });

  it('a token no conversation has, or of the wrong shape: the same 404, never a 500', async () => {
    const shapes = [
      '999999999999999999999999', // 24 digits, nobody's
      mine.token.slice(0, 23), // one digit short
      `${mine.token}0`, // one digit more
      '1', // "declared as an integer": a small one
      '-1',
      '1e24',
      'abcdefabcdefabcdefabcdef',
      `${mine.token.slice(0, 23)}x`,
    ];
    for (const token of shapes) {
      const entry = expectError(await api(historyPath(token)), 404);
      expect(entry.detail, token).toBe('no conversation has this token');
    }
  });

  it("a deleted conversation's token opens nothing any more", async () => {
    const gone = await startConversation(site.users.agent.apiKey, { name: 'Gone' });
    await deliver(fromContact(gone, 'Hello?'));
    expect((await api(historyPath(gone.token))).status).toBe(200);
    await rows(`UPDATE conversations SET state = 'deleted', deleted_at = now() WHERE id = $1`, [gone.id]);
    expectError(await api(historyPath(gone.token)), 404);
  });

  it('bad list parameters: 400 naming them', async () => {
    expectError(await api(historyPath(mine.token), { query: { pageSize: 101 } }), 400, 'pageSize');
    expectError(await api(historyPath(mine.token), { query: { filter: { token: mine.token } } }), 400, /filter/);
    expectError(await api(historyPath(mine.token), { query: { filter: '{not json' } }), 400, /filter/);
    expectError(await api(historyPath(mine.token), { query: { includes: 'secrets' } }), 400, /includes/);
  });

  it('the attack of issue 31: a visitor asks the history for records beside the messages, and gets a 400 naming what it asked', async () => {
    const withCustomer = await startConversation(site.users.agent.apiKey, {
      name: 'Ada',
      email: 'ada-history@example.com',
    });
    const [drafted] = await deliver(
      fromContact(withCustomer, 'Where is my order?'),
      fromAgent(withCustomer, site.users.agent.id, 'On its way', { aiDraft: 'Your order is on its way.' }),
    ).then((records) => records.slice(1));
    for (const includes of ['customers', 'users', 'contacts', 'customers,users', 'files', 'all']) {
      const response = await api(historyPath(withCustomer.token), { query: { includes } });
      if (includes === 'all') {
        // `all` names every relation the history has: none, so nothing beside the messages
        expect(response.status, response.text).toBe(200);
        expect(response.body.included).toEqual({});
        continue;
      }
      expectError(response, 400, /includes/);
    }
    for (const filter of [
      { state: 'deleted' },
      { state: { $in: ['active', 'deleted'] } },
      { deletedAt: { $gt: '2000-01-01T00:00:00Z' } },
      { createdBy: site.users.agent.id },
      { aiDraft: 'x' },
      { aiSimilarity: '1' },
    ]) {
      expectError(await api(historyPath(mine.token), { query: { filter } }), 400, /filter/);
    }
    expectError(await api(historyPath(mine.token), { query: { orderBy: 'deletedAt' } }), 400, /orderBy/);
    expectError(await api(historyPath(mine.token), { query: { fields: 'aiDraft' } }), 400, /fields/);
    // the deleted message stays gone, and no draft or similarity is answered beside a reply
    const plain = await api(historyPath(withCustomer.token));
    expect(plain.status, plain.text).toBe(200);
    const reply = plain.body.conversationmessages.find((m: MessageRecord) => m.id === drafted!.id);
    expect(reply).toBeDefined();
    for (const hidden of ['aiDraft', 'aiSimilarity']) expect(reply, hidden).not.toHaveProperty(hidden);
    expect(texts((await api(historyPath(mine.token))).body)).not.toContain('Oops, wrong window');
  });

  it('is GET only: other methods find no route, even for the owner, and change nothing', async () => {
    for (const method of ['POST', 'PATCH', 'DELETE'] as const) {
      const response = await api(historyPath(mine.token), {
        method,
        key: site.users.owner.apiKey,
        body: method === 'DELETE' ? undefined : {},
      });
      expect([404, 405], `${method}: ${response.text}`).toContain(response.status);
    }
    expect(texts((await api(historyPath(mine.token))).body)).toHaveLength(3);
  });
});
