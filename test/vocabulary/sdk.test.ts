// The platform's official client (Teamwork/desksdkgo) against the Tags, TicketStatuses,
// TicketPriorities, TicketTypes, TicketSources and Spamlists services, with the bodies it
// sends: create with the whole response type (id 0, type null, every included list null),
// get with includes=all, list with FilterBuilder filters and paging, update with PUT. Every
// integer the SDK decodes as `int` must be a JSON integer.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation } from '../support/db';
import { SDK_HEADERS, SDK_INCLUDED } from '../support/sdk';

let site: SeededInstallation;
let key: string;

interface Service {
  path: string;
  /** the wrappers of one record and of a list, as the SDK's response types name them */
  one: string;
  many: string;
  /** the record as the SDK marshals it on create (BaseEntity's id 0 and type null first) */
  create: Record<string, unknown>;
  /** a change sent back with PUT */
  change: Record<string, unknown>;
  /** properties the SDK decodes as `int` */
  ints: string[];
  /** a FilterBuilder filter that selects the created record */
  filter: (record: any) => Record<string, unknown>;
}

const SERVICES: Service[] = [
  {
    path: 'tags',
    one: 'tag',
    many: 'tags',
    create: { name: 'sdk-tag', color: '#123456' },
    change: { color: '#654321' },
    ints: [],
    filter: (r) => ({ name: { $eq: r.name } }),
  },
  {
    path: 'ticketstatuses',
    one: 'ticketstatus',
    many: 'ticketstatuses',
    create: { code: 'waiting', name: 'SDK waiting', displayOrder: 9, isCustom: true, color: '#101010', icon: 'clock' },
    change: { displayOrder: 10 },
    ints: ['displayOrder'],
    filter: (r) => ({ isCustom: { $eq: true }, id: { $in: [r.id] } }),
  },
  {
    path: 'ticketpriorities',
    one: 'ticketpriority',
    many: 'ticketpriorities',
    create: { name: 'SDK priority', color: '#202020', displayOrder: 5 },
    change: { name: 'SDK priority 2' },
    ints: ['displayOrder'],
    filter: (r) => ({ displayOrder: { $gte: 5 }, name: { $in: [r.name] } }),
  },
  {
    path: 'tickettypes',
    one: 'tickettype',
    many: 'tickettypes',
    create: { name: 'SDK type', displayOrder: 6, inboxes: null, default: false, enabledForFutureInboxes: true },
    change: { enabledForFutureInboxes: false, inboxes: null },
    ints: ['displayOrder'],
    filter: (r) => ({ $or: [{ name: r.name }, { id: { $eq: r.id } }] }),
  },
  {
    path: 'ticketsources',
    one: 'ticketSource',
    many: 'ticketSources',
    create: { name: 'SDK source', icon: 'robot', displayOrder: 11, isCustom: true },
    change: { icon: 'gear' },
    ints: ['displayOrder'],
    filter: (r) => ({ id: { $eq: r.id } }),
  },
  {
    path: 'spamlists',
    one: 'spamlist',
    many: 'spamlists',
    create: { term: 'sdk@spam.example', type: 'blacklist' },
    change: { type: 'whitelist' },
    ints: [],
    filter: (r) => ({ term: { $eq: r.term } }),
  },
];

function expectInts(record: Record<string, unknown>, names: string[]) {
  for (const name of ['id', ...names])
    expect(Number.isInteger(record[name]), `${name}: ${JSON.stringify(record[name])}`).toBe(true);
  for (const ref of ['createdBy', 'updatedBy'])
    if (record[ref]) expect(Number.isInteger((record[ref] as { id: unknown }).id)).toBe(true);
}

beforeAll(async () => {
  site = await newInstallation('sdk-vocab');
  key = site.users.owner.apiKey;
});

describe.each(SERVICES.map((service) => [service.path, service] as const))(
  'the SDK on /v2/%s.json',
  (_path, service) => {
    let record: any;

    it('creates with the whole response type sent back', async () => {
      const body = {
        [service.one]: { id: 0, type: service.path === 'spamlists' ? service.create.type : null, ...service.create },
        included: SDK_INCLUDED,
      };
      const response = await api(`/v2/${service.path}.json`, { method: 'POST', key, headers: SDK_HEADERS, body });
      expect(response.status, response.text).toBe(201);
      record = response.body[service.one];
      const { inboxes: _null, ...sent } = service.create;
      expect(record).toMatchObject(sent);
      expectInts(record, service.ints);
    });

    it('gets with includes=all', async () => {
      const response = await api(`/v2/${service.path}/${record.id}.json`, {
        key,
        headers: SDK_HEADERS,
        query: { includes: 'all' },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body[service.one].id).toBe(record.id);
      expect(response.body.included.users).toEqual([
        expect.objectContaining({ id: site.users.owner.id, type: 'users' }),
      ]);
      expectInts(response.body[service.one], service.ints);
    });

    it('lists with a FilterBuilder filter and paging, `pagination` beside `meta.page`', async () => {
      const response = await api(`/v2/${service.path}.json`, {
        key,
        headers: SDK_HEADERS,
        query: { filter: service.filter(record), page: 1, pageSize: 50, orderBy: 'createdAt', orderMode: 'desc' },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body[service.many].map((r: any) => r.id)).toEqual([record.id]);
      expect(response.body.pagination).toEqual({ records: 1, pageSize: 50, pages: 1, page: 1, hasMorePages: false });
      expect(response.body.meta.page).toMatchObject({
        count: 1,
        pageSize: 50,
        pageOffset: 0,
        pages: 1,
        hasMore: false,
      });
      for (const item of response.body[service.many]) expectInts(item, service.ints);
    });

    it('updates with PUT and the whole response type sent back', async () => {
      const body = { [service.one]: { ...record, ...service.change }, included: SDK_INCLUDED };
      const response = await api(`/v2/${service.path}/${record.id}.json`, {
        method: 'PUT',
        key,
        headers: SDK_HEADERS,
        body,
      });
      expect(response.status, response.text).toBe(200);
      const { inboxes: _ignored, ...changed } = service.change;
      expect(response.body[service.one]).toMatchObject(changed);
      expectInts(response.body[service.one], service.ints);
    });
  },
);
