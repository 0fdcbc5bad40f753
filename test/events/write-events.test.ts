// Every change made through the engine writes its events in the same transaction (the outbox):
// each write kind, exactly the events expected, read back from the events table; a write that
// is refused or rolled back writes none.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api, type ApiResponse } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { eventsOf, eventsSince, expectActor, lastEventId, summary } from '../support/events';
import { finishedJob, startImport } from '../support/jobs';

let site: SeededInstallation;
let key: string;
let userId: number;

beforeAll(async () => {
  site = await newInstallation('events');
  key = site.users.agent.apiKey;
  userId = site.users.agent.id;
});

async function create(name: string, more: Record<string, unknown> = {}) {
  const response = await api('/v2/companies.json', { method: 'POST', key, body: { company: { name, ...more } } });
  expect(response.status, response.text).toBe(201);
  return response.body.company as { id: number };
}

/**
 * The events a request wrote: those after the mark taken before it. The request must answer the
 * status given, or any 2xx: a request that failed otherwise would write nothing for the wrong reason.
 */
async function eventsOfRequest(request: () => Promise<ApiResponse>, status?: number) {
  const mark = await lastEventId(site.id);
  const response = await request();
  if (status === undefined) {
    expect(response.status, response.text).toBeGreaterThanOrEqual(200);
    expect(response.status, response.text).toBeLessThan(300);
  } else {
    expect(response.status, response.text).toBe(status);
  }
  return eventsSince(site.id, mark);
}

describe('a create', () => {
  it('writes `created` for the record and for each owned record it brings, by the caller', async () => {
    let id = 0;
    const events = await eventsOfRequest(async () => {
      const response = await api('/v2/companies.json', {
        method: 'POST',
        key,
        body: { company: { name: 'Created Co', domains: [{ name: 'created.test' }, { name: 'created.example' }] } },
      });
      id = response.body?.company?.id;
      return response;
    }, 201);
    expect(summary(events)).toEqual(['companies:created', 'domains:created', 'domains:created']);
    expect(events[0]).toMatchObject({ recordId: id, data: {} });
    expect(events[1]!.data).toEqual({ parent: { id, type: 'companies' } });
    expectActor(events, userId);
  });
});

describe('an update', () => {
  it('writes `updated` with exactly the properties that changed, before and after', async () => {
    const { id } = await create('Before Co', { industry: 'Retail', website: 'https://before.test' });
    const events = await eventsOfRequest(() =>
      api(`/v2/companies/${id}.json`, {
        method: 'PATCH',
        key,
        body: { company: { name: 'After Co', industry: 'Retail', description: 'new' } },
      }),
    );
    expect(summary(events)).toEqual(['companies:updated']);
    expect(events[0]).toMatchObject({ recordId: id });
    expect(events[0]!.data).toEqual({
      name: { before: 'Before Co', after: 'After Co' },
      description: { before: null, after: 'new' },
    });
  });

  it('writes nothing when nothing changed', async () => {
    const { id } = await create('Same Co', { industry: 'Retail' });
    const events = await eventsOfRequest(() =>
      api(`/v2/companies/${id}.json`, { method: 'PUT', key, body: { industry: 'Retail' } }),
    );
    expect(events).toEqual([]);
  });

  it('writes relation changes: a customer linked and unlinked, an owned record changed and removed', async () => {
    const [customer] = await rows<{ id: number }>(
      `INSERT INTO customers (installation_id, first_name, email) VALUES ($1, 'Grace', 'grace@events.test') RETURNING id`,
      [site.id],
    );
    const { id } = await create('Related Co', { domains: [{ name: 'one.test' }] });
    const [domain] = await rows<{ id: number }>('SELECT id FROM company_domains WHERE company_id = $1', [id]);

    const linked = await eventsOfRequest(() =>
      api(`/v2/companies/${id}.json`, { method: 'PATCH', key, body: { customers: [{ id: customer!.id }] } }),
    );
    expect(summary(linked)).toEqual(['companies:linked']);
    expect(linked[0]!.data).toEqual({ relation: 'customers', record: { id: customer!.id, type: 'customers' } });

    // Linking again changes nothing, so it writes nothing.
    expect(
      await eventsOfRequest(() =>
        api(`/v2/companies/${id}.json`, { method: 'PATCH', key, body: { customers: [{ id: customer!.id }] } }),
      ),
    ).toEqual([]);

    const changed = await eventsOfRequest(() =>
      api(`/v2/companies/${id}.json`, {
        method: 'PATCH',
        key,
        body: { domains: [{ id: domain!.id, name: 'two.test' }], customers: [{ id: customer!.id, delete: true }] },
      }),
    );
    // Relations are written in the order the declaration lists them: customers, then domains.
    expect(summary(changed)).toEqual(['companies:unlinked', 'domains:updated']);
    expect(changed[1]).toMatchObject({
      recordId: domain!.id,
      data: { name: { before: 'one.test', after: 'two.test' } },
    });

    const removed = await eventsOfRequest(() =>
      api(`/v2/companies/${id}.json`, { method: 'PATCH', key, body: { domains: [{ id: domain!.id, delete: true }] } }),
    );
    expect(summary(removed)).toEqual(['domains:deleted']);
    expect(removed[0]!.data).toEqual({ parent: { id, type: 'companies' } });
  });
});

describe('a delete and the bulk operations', () => {
  it('writes `deleted` for a delete', async () => {
    const { id } = await create('Deleted Co');
    const events = await eventsOfRequest(() => api(`/v2/companies/${id}.json`, { method: 'DELETE', key }));
    expect(events.map((e) => [e.recordType, e.recordId, e.kind])).toEqual([['companies', id, 'deleted']]);
  });

  it('writes one event for each record a bulk update changed, and one for each a bulk delete removed', async () => {
    const a = await create('Bulk A', { industry: 'Bulk' });
    const b = await create('Bulk B', { industry: 'Bulk' });
    const c = await create('Bulk C', { industry: 'Bulk', website: 'https://bulk.test' });
    const filter = JSON.stringify({ industry: 'Bulk' });
    const updated = await eventsOfRequest(() =>
      api(`/v2/companies/update.json?filter=${encodeURIComponent(filter)}`, {
        method: 'PATCH',
        key,
        body: { website: 'https://bulk.test' },
      }),
    );
    // C already had the website: it changed in nothing, so it has no event.
    expect(updated.map((e) => [e.kind, e.recordId]).sort()).toEqual(
      [
        ['updated', a.id],
        ['updated', b.id],
      ].sort(),
    );
    expect(updated[0]!.data).toEqual({ website: { before: null, after: 'https://bulk.test' } });

    const deleted = await eventsOfRequest(() =>
      api(`/v2/companies/delete.json?filter=${encodeURIComponent(filter)}`, { method: 'DELETE', key }),
    );
    expect(deleted.map((e) => [e.kind, e.recordId]).sort()).toEqual(
      [
        ['deleted', a.id],
        ['deleted', b.id],
        ['deleted', c.id],
      ].sort(),
    );
  });
});

describe('a write that is refused or rolled back', () => {
  it('writes no event when the request is refused before anything is written', async () => {
    await create('Taken Co');
    const events = await eventsOfRequest(
      () => api('/v2/companies.json', { method: 'POST', key, body: { name: 'Taken Co' } }),
      409,
    );
    expect(events).toEqual([]);
  });

  it('writes no event when the transaction fails after the record was written', async () => {
    const { id } = await create('Half Co');
    // The record's change is written first, then the unlink of a customer that is not linked fails the whole transaction.
    const [customer] = await rows<{ id: number }>(
      `INSERT INTO customers (installation_id, first_name, email) VALUES ($1, 'Ned', 'ned@events.test') RETURNING id`,
      [site.id],
    );
    const events = await eventsOfRequest(
      () =>
        api(`/v2/companies/${id}.json`, {
          method: 'PATCH',
          key,
          body: { name: 'Half Changed Co', customers: [{ id: customer!.id, delete: true }] },
        }),
      400,
    );
    expect(events).toEqual([]);
    const [row] = await rows<{ name: string }>('SELECT name FROM companies WHERE id = $1', [id]);
    expect(row!.name).toBe('Half Co');
    expect(await eventsOf(site.id, 'companies', id)).toHaveLength(1);
  });
});

describe('special operations', () => {
  it('migrate writes `migrated` for each company it makes and `linked` for each customer it adds', async () => {
    const [customer] = await rows<{ id: number }>(
      `INSERT INTO customers (installation_id, first_name, email, organization) VALUES ($1, 'Mia', 'mia@events.test', 'Migrated Org') RETURNING id`,
      [site.id],
    );
    const events = await eventsOfRequest(() =>
      api('/v2/companies/migrate.json', { method: 'POST', key: site.users.admin.apiKey }),
    );
    const [company] = await rows<{ id: number }>(
      `SELECT id FROM companies WHERE installation_id = $1 AND name = 'Migrated Org'`,
      [site.id],
    );
    expect(events.map((e) => [e.recordType, e.recordId, e.kind])).toEqual([
      ['companies', company!.id, 'migrated'],
      ['companies', company!.id, 'linked'],
    ]);
    expect(events[1]!.data).toEqual({ relation: 'customers', record: { id: customer!.id, type: 'customers' } });
    expectActor(events, site.users.admin.id);
    expect(
      await eventsOfRequest(() => api('/v2/companies/migrate.json', { method: 'POST', key: site.users.admin.apiKey })),
    ).toEqual([]);
  });

  it('an import writes `imported` for each company, by the import on behalf of who started it', async () => {
    const existing = await create('Imported Before');
    const mark = await lastEventId(site.id);
    const jobId = await startImport(key, 'name,domains\nImported Before,before.import.test\nImported New,\n');
    await finishedJob(key, jobId);
    const events = await eventsSince(site.id, mark);
    const [created] = await rows<{ id: number }>(
      `SELECT id FROM companies WHERE installation_id = $1 AND name = 'Imported New'`,
      [site.id],
    );
    expect(
      events
        .filter((e) => e.kind === 'imported')
        .map((e) => [e.recordId, e.data])
        .sort(),
    ).toEqual(
      [
        [existing.id, { created: false, job: jobId }],
        [created!.id, { created: true, job: jobId }],
      ].sort(),
    );
    expect(summary(events.filter((e) => e.kind !== 'imported'))).toEqual(['domains:created']);
    expectActor(events, userId, 'import');
  });

  it('an app install writes `installed` and the feature installations it makes; a repeat writes nothing', async () => {
    // An app with features, so that the install makes feature installations.
    const [app] = await rows<{ id: number }>(
      `SELECT id FROM apps a WHERE state = 'active' AND EXISTS (SELECT 1 FROM app_features f WHERE f.app_id = a.id AND f.state = 'active') ORDER BY id LIMIT 1`,
    );
    const admin = site.users.admin.apiKey;
    const installed = await eventsOfRequest(() =>
      api(`/v2/apps/${app!.id}/install.json`, { method: 'POST', key: admin }),
    );
    expect(installed[0]).toMatchObject({ recordType: 'apps', recordId: app!.id, kind: 'installed' });
    // One `created` for each feature installation the install made, and nothing else.
    const made = await rows<{ id: number }>(
      `SELECT fi.id FROM app_feature_installations fi JOIN app_features f ON f.id = fi.appfeature_id
        WHERE fi.installation_id = $1 AND f.app_id = $2 AND fi.state = 'active' ORDER BY fi.id`,
      [site.id, app!.id],
    );
    expect(made.length).toBeGreaterThan(0);
    const features = [...installed.slice(1)].sort((a, b) => a.recordId - b.recordId);
    expect(features.map((e) => [e.recordType, e.recordId, e.kind])).toEqual(
      made.map((row) => ['appfeaturesinstallations', row.id, 'created']),
    );
    expect(
      await eventsOfRequest(() => api(`/v2/apps/${app!.id}/install.json`, { method: 'POST', key: admin })),
    ).toEqual([]);
    const uninstalled = await eventsOfRequest(() =>
      api(`/v2/apps/${app!.id}/uninstall.json`, { method: 'POST', key: admin }),
    );
    expect(uninstalled[0]).toMatchObject({ recordType: 'apps', kind: 'uninstalled' });
  });
});
