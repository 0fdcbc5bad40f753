// GET /v2/anomalies.json and GET /v2/anomalies/{id}.json: the contract, and the filter,
// orderBy and includes names of part 2 (Audit set, customer, inbox, name, user; users, all).
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError, insertAnomaly } from './fixtures';

let site: SeededInstallation;
let other: SeededInstallation;
let key: string;
const ids = { burst: 0, jump: 0, storm: 0, deleted: 0, others: 0, customer1: 0, customer2: 0, inbox: 0 };

const AUDIT_SET = ['createdAt', 'createdBy', 'deletedAt', 'deletedBy', 'updatedAt', 'updatedBy', 'state', 'id'];
const ALLOWED = [...AUDIT_SET, 'customer', 'inbox', 'name', 'user'];
const names = (body: { anomalies: { name: string }[] }) => body.anomalies.map((a) => a.name);

beforeAll(async () => {
  site = await newInstallation('anomalies-list');
  other = await newInstallation('anomalies-list-other');
  key = site.users.agent.apiKey;
  const [c1, c2] = await rows<{ id: number }>(
    `INSERT INTO customers (installation_id, email) VALUES ($1, 'one@x.test'), ($1, 'two@x.test') RETURNING id`,
    [site.id],
  );
  const [inbox] = await rows<{ id: number }>(
    `INSERT INTO inboxes (installation_id, name) VALUES ($1, 'Support') RETURNING id`,
    [site.id],
  );
  Object.assign(ids, { customer1: c1!.id, customer2: c2!.id, inbox: inbox!.id });
  ids.burst = await insertAnomaly(site.id, {
    name: 'conversation burst',
    customerId: c1!.id,
    inboxId: inbox!.id,
    userId: site.users.agent.id,
    details: { count: 40 },
  });
  ids.jump = await insertAnomaly(site.id, { name: 'ai usage jump', userId: site.users.admin.id });
  ids.storm = await insertAnomaly(site.id, {
    name: 'login storm',
    customerId: c2!.id,
    status: 'cleared',
    clearedAt: '2026-01-02T03:04:05.678Z',
    clearedBy: site.users.owner.id,
    clearNote: 'known',
  });
  ids.deleted = await insertAnomaly(site.id, { name: 'gone', state: 'deleted' });
  ids.others = await insertAnomaly(other.id, { name: 'conversation burst', userId: other.users.agent.id });
});

describe('GET /v2/anomalies.json', () => {
  it('answers 200 with the plural wrapper, meta.page, open and cleared anomalies alike', async () => {
    const response = await api('/v2/anomalies.json', { key });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['anomalies', 'included', 'meta', 'pagination']);
    expect(names(response.body)).toEqual(['conversation burst', 'ai usage jump', 'login storm']);
    expect(response.body.meta.page).toEqual({
      page: 1,
      pageSize: 50,
      pageOffset: 0,
      count: 3,
      pages: 1,
      hasMore: false,
    });
    expect(response.body.included).toEqual({});
  });

  it('shows each record with its references, status and clearing', async () => {
    const response = await api('/v2/anomalies.json', { key });
    const [burst, , storm] = response.body.anomalies;
    expect(burst).toMatchObject({
      id: ids.burst,
      type: 'anomalies',
      name: 'conversation burst',
      details: { count: 40 },
      customer: { id: ids.customer1, type: 'customers' },
      inbox: { id: ids.inbox, type: 'inboxes' },
      user: { id: site.users.agent.id, type: 'users' },
      status: 'open',
      clearedAt: null,
      clearedBy: null,
      clearNote: null,
      state: 'active',
    });
    expect(burst.detectedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(burst).not.toHaveProperty('deletedAt');
    expect(storm).toMatchObject({
      status: 'cleared',
      clearedAt: '2026-01-02T03:04:05.678Z',
      clearedBy: { id: site.users.owner.id, type: 'users' },
      clearNote: 'known',
      customer: { id: ids.customer2, type: 'customers' },
      inbox: null,
      user: null,
    });
  });

  it('is readable by every role, a collaborator too', async () => {
    for (const role of ['owner', 'admin', 'agent', 'collaborator'] as const) {
      const response = await api('/v2/anomalies.json', { key: site.users[role].apiKey });
      expect(response.status, `${role}: ${response.text}`).toBe(200);
      expect(response.body.anomalies).toHaveLength(3);
    }
  });

  it('answers 401 without a credential', async () => {
    expect((await api('/v2/anomalies.json')).status).toBe(401);
  });

  it("never shows another installation's anomalies", async () => {
    const response = await api('/v2/anomalies.json', { key, query: { filter: { id: ids.others } } });
    expect(response.body.anomalies).toEqual([]);
  });

  const filters: [string, unknown, string[]][] = [
    ['name', { name: 'ai usage jump' }, ['ai usage jump']],
    ['name $contains', { name: { $contains: 'BURST' } }, ['conversation burst']],
    ['customer', { customer: 0 }, []],
    ['user', { user: 0 }, []],
    ['inbox null', { inbox: null }, ['ai usage jump', 'login storm']],
    ['state deleted reaches deleted ones', { state: 'deleted' }, ['gone']],
  ];
  for (const [title, filter, expected] of filters) {
    it(`filters by ${title}`, async () => {
      const response = await api('/v2/anomalies.json', { key, query: { filter: filter as object } });
      expect(response.status, response.text).toBe(200);
      expect(names(response.body)).toEqual(expected);
    });
  }

  it('filters by the references customer, inbox and user (their ids)', async () => {
    const byCustomer = await api('/v2/anomalies.json', { key, query: { filter: { customer: ids.customer2 } } });
    expect(names(byCustomer.body)).toEqual(['login storm']);
    const byInbox = await api('/v2/anomalies.json', { key, query: { filter: { inbox: { $in: [ids.inbox] } } } });
    expect(names(byInbox.body)).toEqual(['conversation burst']);
    const byUser = await api('/v2/anomalies.json', { key, query: { filter: { user: site.users.admin.id } } });
    expect(names(byUser.body)).toEqual(['ai usage jump']);
  });

  it('accepts every filter name of part 2', async () => {
    const values: Record<string, unknown> = {
      createdAt: { $gt: '2000-01-01' },
      createdBy: null,
      deletedAt: null,
      deletedBy: null,
      updatedAt: { $lt: '2999-01-01' },
      updatedBy: null,
      state: 'active',
      id: { $gt: 0 },
      customer: { $ne: null },
      inbox: { $ne: 0 },
      name: { $contains: 'o' },
      user: { $nin: [0] },
    };
    expect(Object.keys(values).sort()).toEqual([...ALLOWED].sort());
    for (const [name, value] of Object.entries(values)) {
      const response = await api('/v2/anomalies.json', { key, query: { filter: { [name]: value } } });
      expect(response.status, `${name}: ${response.text}`).toBe(200);
    }
  });

  it('refuses a filter name part 2 does not list, naming it', async () => {
    for (const name of ['status', 'details', 'detectedAt', 'clearedAt', 'clearNote', 'customerId', 'email']) {
      expectError(
        await api('/v2/anomalies.json', { key, query: { filter: { [name]: 'x' } } }),
        400,
        `filter.${name}`,
        new RegExp(`unknown field "${name}"`),
      );
    }
  });

  it('accepts every orderBy name of part 2', async () => {
    for (const name of ALLOWED) {
      const response = await api(`/v2/anomalies.json?orderBy=${name}&orderMode=desc`, { key });
      expect(response.status, `${name}: ${response.text}`).toBe(200);
      expect(response.body.anomalies).toHaveLength(3);
    }
    const byName = await api('/v2/anomalies.json?orderBy=name', { key });
    expect(names(byName.body)).toEqual(['ai usage jump', 'conversation burst', 'login storm']);
    const byUser = await api('/v2/anomalies.json?orderBy=user&orderMode=desc', { key });
    // Seeded user ids rise owner < admin < agent; Postgres sorts nulls first when descending.
    expect(names(byUser.body)).toEqual(['login storm', 'conversation burst', 'ai usage jump']);
  });

  it('refuses an orderBy name part 2 does not list, naming it', async () => {
    for (const name of ['status', 'detectedAt', 'clearedAt', 'customerId', 'name.x']) {
      expectError(
        await api(`/v2/anomalies.json?orderBy=${name}`, { key }),
        400,
        'orderBy',
        new RegExp(`"${name.replace('.', '\\.')}"`),
      );
    }
  });

  it('includes=users puts the users named by the records in included, once each', async () => {
    const response = await api('/v2/anomalies.json?includes=users', { key });
    expect(response.status, response.text).toBe(200);
    const included = response.body.included.users as { id: number; type: string }[];
    expect(included.map((u) => u.id).sort((a, b) => a - b)).toEqual(
      [site.users.owner.id, site.users.admin.id, site.users.agent.id].sort((a, b) => a - b),
    );
    expect(included[0]).toMatchObject({ type: 'users', email: expect.any(String), role: expect.any(String) });
    expect(response.body.anomalies[0]).not.toHaveProperty('users');
    const all = await api('/v2/anomalies.json?includes=all', { key });
    expect(all.body.included).toEqual(response.body.included);
  });

  it('refuses an include part 2 does not list, naming it', async () => {
    for (const name of ['customers', 'inboxes', 'anomalies']) {
      expectError(await api(`/v2/anomalies.json?includes=${name}`, { key }), 400, 'includes', new RegExp(`"${name}"`));
    }
  });
});

describe('GET /v2/anomalies/{id}.json', () => {
  it('answers 200 with the singular wrapper', async () => {
    const response = await api(`/v2/anomalies/${ids.burst}.json`, { key });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['anomaly', 'included']);
    expect(response.body.anomaly).toMatchObject({
      id: ids.burst,
      type: 'anomalies',
      name: 'conversation burst',
      status: 'open',
    });
  });

  it('reads a cleared anomaly as any other', async () => {
    const response = await api(`/v2/anomalies/${ids.storm}.json?includes=users`, {
      key: site.users.collaborator.apiKey,
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.anomaly.status).toBe('cleared');
    expect(response.body.included.users.map((u: { id: number }) => u.id)).toEqual([site.users.owner.id]);
  });

  it("answers 404 for a deleted anomaly, another installation's and one that does not exist", async () => {
    for (const id of [ids.deleted, ids.others, 2_000_000_000]) {
      expectError(await api(`/v2/anomalies/${id}.json`, { key }), 404, 'id');
    }
  });

  it('answers 400 to an id that is not a positive integer, and to an unknown include', async () => {
    expectError(await api('/v2/anomalies/abc.json', { key }), 400, 'id');
    expectError(await api(`/v2/anomalies/${ids.burst}.json?includes=customers`, { key }), 400, 'includes');
  });

  it('serves no create, update or delete', async () => {
    expect((await api('/v2/anomalies.json', { method: 'POST', key, body: { name: 'x' } })).status).toBe(404);
    expect((await api(`/v2/anomalies/${ids.burst}.json`, { method: 'PATCH', key, body: { name: 'x' } })).status).toBe(
      404,
    );
    expect((await api(`/v2/anomalies/${ids.burst}.json`, { method: 'DELETE', key })).status).toBe(404);
    expect(
      (await api('/v2/anomalies/delete.json', { method: 'DELETE', key, query: { filter: { id: ids.burst } } })).status,
    ).toBe(404);
  });
});
