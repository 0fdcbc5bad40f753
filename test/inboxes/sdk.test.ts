// The platform's official client (Teamwork/desksdkgo) against its Inboxes service: create with the
// whole InboxResponse (id 0, the fields it marshals without omitempty as null), get with
// includes=all, list with a FilterBuilder filter and paging, update with PUT sending back what it
// read. `displayOrder`, `spamThreshold`, `onClosedWait` and `smtpPort` are `int` in its Inbox type,
// and a member is an InboxUser `{id, type, meta: {access}}`.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation } from '../support/db';
import { SDK_HEADERS, SDK_INCLUDED } from '../support/sdk';

let site: SeededInstallation;
let key: string;

/** The Inbox fields the SDK marshals without omitempty. */
const SDK_NULLS = Object.fromEntries(
  [
    'inboxaliases',
    'inboxcnames',
    'inboxemailrefs',
    'oauth2token',
    'projects',
    'restricteddomains',
    'syncAccountId',
    'syncDays',
    'syncSubscriptionId',
    'tickettypes',
    'triggers',
    'user',
    'users',
  ].map((name) => [name, null]),
);

function expectInboxTypes(inbox: Record<string, any>) {
  for (const name of ['id', 'displayOrder', 'spamThreshold', 'onClosedWait'])
    expect(Number.isInteger(inbox[name]), name).toBe(true);
  if (inbox.smtpPort !== null) expect(Number.isInteger(inbox.smtpPort)).toBe(true);
  for (const member of inbox.users ?? [])
    expect(member).toEqual({
      id: expect.any(Number),
      type: 'users',
      meta: { access: expect.stringMatching(/^(full|restricted)$/) },
    });
}

beforeAll(async () => {
  site = await newInstallation('sdk-inboxes');
  key = site.users.owner.apiKey;
});

describe('the SDK on /v2/inboxes.json', () => {
  let read: any;

  it('creates with the whole response type sent', async () => {
    const inbox = {
      id: 0,
      ...SDK_NULLS,
      name: 'SDK inbox',
      email: 'sdk@inboxes.test',
      displayOrder: 3,
      spamThreshold: 7,
      autoReplyEnabled: true,
      autoReplySubject: 'Thanks',
      smtpPort: 2525,
      smtpServer: 'smtp.inboxes.test',
    };
    const response = await api('/v2/inboxes.json', {
      method: 'POST',
      key,
      headers: SDK_HEADERS,
      body: { inbox, included: SDK_INCLUDED },
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.inbox).toMatchObject({ name: 'SDK inbox', displayOrder: 3, spamThreshold: 7, smtpPort: 2525 });
    expectInboxTypes(response.body.inbox);
  });

  it('lists with a FilterBuilder filter and paging, then gets with includes=all', async () => {
    const list = await api('/v2/inboxes.json', {
      key,
      headers: SDK_HEADERS,
      query: { filter: { email: { $eq: 'sdk@inboxes.test' } }, page: 1, pageSize: 50 },
    });
    expect(list.status, list.text).toBe(200);
    expect(list.body.pagination).toEqual({ records: 1, pageSize: 50, pages: 1, page: 1, hasMorePages: false });
    const response = await api(`/v2/inboxes/${list.body.inboxes[0].id}.json`, {
      key,
      headers: SDK_HEADERS,
      query: { includes: 'all' },
    });
    expect(response.status, response.text).toBe(200);
    read = response.body;
    expectInboxTypes(read.inbox);
    expect(read.inbox.users).toEqual([]);
    expect(read.inbox.tickettypes).toEqual([]);
  });

  it('updates with PUT, sending back what it read with members added', async () => {
    const body = {
      inbox: {
        ...read.inbox,
        ...SDK_NULLS,
        users: [{ id: site.users.agent.id, type: 'users', meta: { access: 'restricted', isAdmin: false } }],
        languageCode: 'de',
      },
      included: { ...SDK_INCLUDED, ...read.included },
    };
    const response = await api(`/v2/inboxes/${read.inbox.id}.json`, {
      method: 'PUT',
      key,
      headers: SDK_HEADERS,
      body,
      query: { includes: 'all' },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.inbox).toMatchObject({
      languageCode: 'de',
      users: [{ id: site.users.agent.id, type: 'users', meta: { access: 'restricted' } }],
    });
    expectInboxTypes(response.body.inbox);
  });
});
