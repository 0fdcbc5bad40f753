// The platform's official client (Teamwork/desksdkgo) against its Users service: create with the
// whole UserResponse (id 0, type null, every included list null), get with includes=all, list
// with a FilterBuilder filter and paging, update with PUT sending back what it read. `timezoneId`
// and `timeFormatId` are `int` in its User type.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation } from '../support/db';
import { SDK_HEADERS, SDK_INCLUDED } from '../support/sdk';

let site: SeededInstallation;
let key: string;

function expectUserTypes(user: Record<string, any>) {
  for (const name of ['id', 'timezoneId', 'timeFormatId']) expect(Number.isInteger(user[name]), name).toBe(true);
  for (const name of [
    'isPartTime',
    'reviewer',
    'sendPushNotifications',
    'sendWebNotifications',
    'autoFollowOnCC',
    'isAppOwner',
  ])
    expect(typeof user[name], name).toBe('boolean');
  for (const name of ['email', 'firstName', 'lastName', 'role', 'editMethod'])
    expect(typeof user[name], name).toBe('string');
}

beforeAll(async () => {
  site = await newInstallation('sdk-users');
  key = site.users.owner.apiKey;
});

describe('the SDK on /v2/users.json', () => {
  let read: any;

  it('creates with the whole response type sent', async () => {
    const body = {
      user: {
        id: 0,
        type: null,
        email: 'sdk@users.test',
        firstName: 'Sdk',
        lastName: 'User',
        role: 'agent',
        timezoneId: 1,
        isPartTime: true,
      },
      included: SDK_INCLUDED,
    };
    const response = await api('/v2/users.json', { method: 'POST', key, headers: SDK_HEADERS, body });
    expect(response.status, response.text).toBe(201);
    expect(response.body.user).toMatchObject({ email: 'sdk@users.test', role: 'agent', isPartTime: true });
    expectUserTypes(response.body.user);
  });

  it('lists with a FilterBuilder filter and paging, then gets with includes=all', async () => {
    const list = await api('/v2/users.json', {
      key,
      headers: SDK_HEADERS,
      query: { filter: { email: { $eq: 'sdk@users.test' }, role: { $in: ['agent'] } }, page: 1, pageSize: 50 },
    });
    expect(list.status, list.text).toBe(200);
    expect(list.body.pagination).toEqual({ records: 1, pageSize: 50, pages: 1, page: 1, hasMorePages: false });
    expect(list.body.meta.page).toMatchObject({ count: 1, pageSize: 50, pageOffset: 0, pages: 1, hasMore: false });
    const response = await api(`/v2/users/${list.body.users[0].id}.json`, {
      key,
      headers: SDK_HEADERS,
      query: { includes: 'all' },
    });
    expect(response.status, response.text).toBe(200);
    read = response.body;
    expectUserTypes(read.user);
    expect(read.included.users).toEqual([
      expect.objectContaining({ id: site.users.owner.id, type: 'users', isAppOwner: true }),
    ]);
  });

  it('updates with PUT, sending back what it read with one change', async () => {
    const body = {
      user: { ...read.user, reviewer: true, ticketReplyRedirect: 'ticket' },
      included: { ...SDK_INCLUDED, ...read.included },
    };
    const response = await api(`/v2/users/${read.user.id}.json`, { method: 'PUT', key, headers: SDK_HEADERS, body });
    expect(response.status, response.text).toBe(200);
    expect(response.body.user).toMatchObject({ reviewer: true, isPartTime: true, role: 'agent' });
    expectUserTypes(response.body.user);
  });
});
