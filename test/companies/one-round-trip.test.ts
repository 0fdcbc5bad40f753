// Companies' special writes, one exchange each with the database (one HTTP batch, no WebSocket
// connection) for what they write: the migration of organizations (both statements), the
// project-management connection's PUT (the stored address locked and compared in the batch), and
// a sync's links once the product answered (its reads come first, two exchanges side by side:
// they say what to ask the product) (docs/connection-strategy.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { eventsSince, lastEventId } from '../support/events';
import { startPmServer, type PmServer } from '../support/pm-server';
import { withRoundTrips } from '../support/round-trips';

let pm: PmServer;
let site: SeededInstallation;
let admin: string;

beforeAll(async () => {
  pm = await startPmServer();
  site = await newInstallation('companies-trips');
  admin = site.users.admin.apiKey;
});

afterAll(async () => {
  await pm?.close();
});

/** The request's round trips, the caller's credential looked up just before (remembered: the count is the request alone). */
async function counted(path: string, method: string, body?: unknown) {
  await api('/v2/companies.json', { key: admin });
  return withRoundTrips(path, { key: admin, method, body });
}

const kindsSince = async (mark: number) =>
  (await eventsSince(site.id, mark)).map((event) => `${event.recordType}:${event.kind}`);

describe('companies in one round trip', () => {
  it("migrates customers' organizations into companies and their members in one exchange", async () => {
    for (const [label, organization] of [
      ['mia', 'Trips Ltd'],
      ['max', ' trips ltd '],
      ['ann', 'Other Trips'],
    ]) {
      await rows('INSERT INTO customers (installation_id, first_name, email, organization) VALUES ($1, $2, $3, $4)', [
        site.id,
        label,
        `${label}@trips.test`,
        organization,
      ]);
    }
    const mark = await lastEventId(site.id);
    const { answer, trips } = await counted('/v2/companies/migrate.json', 'POST');
    expect(answer.status, answer.text).toBe(200);
    expect(trips).toBe(1);
    const made = await rows<{ name: string; members: number }>(
      `SELECT c.name, (SELECT count(*)::int FROM company_customers m WHERE m.company_id = c.id) AS members FROM companies c WHERE c.installation_id = $1 ORDER BY c.name`,
      [site.id],
    );
    expect(made).toEqual([
      { name: 'Other Trips', members: 1 },
      { name: 'Trips Ltd', members: 2 },
    ]);
    expect((await kindsSince(mark)).sort()).toEqual([
      'companies:linked',
      'companies:linked',
      'companies:linked',
      'companies:migrated',
      'companies:migrated',
    ]);
    // again: nothing to do, nothing written, still one exchange
    const again = await counted('/v2/companies/migrate.json', 'POST');
    expect(again.trips).toBe(1);
    expect(await kindsSince(mark)).toHaveLength(5);
  });

  it('sets the project-management connection in one exchange; a new address forgets the old links, with the change in its event', async () => {
    const mark = await lastEventId(site.id);
    const first = await counted('/v2/pmconnection.json', 'PUT', { pmconnection: { baseUrl: pm.url, token: pm.token } });
    expect(first.answer.status, first.answer.text).toBe(200);
    expect(first.trips).toBe(1);
    expect(first.answer.body.pmconnection).toMatchObject({ baseUrl: pm.url, hasToken: true, lastSyncedAt: null });
    // a sync writes its links, the connection's last sync and its event in one batch, after its reads
    const [company] = await rows<{ id: number }>(
      `SELECT id FROM companies WHERE installation_id = $1 AND name = 'Trips Ltd'`,
      [site.id],
    );
    const synced = await counted(`/v2/companies/${company!.id}/pmsync.json`, 'POST');
    expect(synced.answer.status, synced.answer.text).toBe(200);
    // the company with its link and people (one batch) beside the connection's settings, then the write
    expect(synced.trips).toBe(3);
    expect(
      await rows('SELECT local_type FROM pm_links WHERE installation_id = $1 ORDER BY local_type, local_id', [site.id]),
    ).toEqual([{ local_type: 'companies' }, { local_type: 'customers' }, { local_type: 'customers' }]);
    const same = await counted('/v2/pmconnection.json', 'PUT', {
      pmconnection: { baseUrl: pm.url, token: 'another token' },
    });
    expect(same.trips).toBe(1);
    expect(same.answer.body.pmconnection.lastSyncedAt).toMatch(/Z$/);
    expect((await rows('SELECT 1 FROM pm_links WHERE installation_id = $1', [site.id])).length).toBe(3);
    const moved = await counted('/v2/pmconnection.json', 'PUT', {
      pmconnection: { baseUrl: 'https://93.184.216.34', token: 't' },
    });
    expect(moved.answer.status, moved.answer.text).toBe(200);
    expect(moved.trips).toBe(1);
    expect(moved.answer.body.pmconnection).toMatchObject({ baseUrl: 'https://93.184.216.34', lastSyncedAt: null });
    expect(await rows('SELECT 1 FROM pm_links WHERE installation_id = $1', [site.id])).toEqual([]);
    const events = (await eventsSince(site.id, mark)).filter((event) => event.recordType === 'pmconnections');
    expect(events.map((event) => [event.kind, event.data])).toEqual([
      ['created', {}],
      ['updated', {}],
      ['updated', { baseUrl: { before: pm.url, after: 'https://93.184.216.34' } }],
    ]);
    expect(await kindsSince(mark)).toContain('companies:synced');
  });
});

describe("an import's start", () => {
  const start = async (csv: string) => {
    await api('/v2/companies.json', { key: admin });
    return withRoundTrips('/v2/companies/import.csv', {
      key: admin,
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: csv,
    });
  };
  const job = (answer: { headers: Headers }) => Number(/\/(\d+)\.json$/.exec(answer.headers.get('location') ?? '')![1]);

  it('stages the rows and chunks of a file that fits one exchange in one batch', async () => {
    const made = await start(`name,details\nTrip Import One,first\nTrip Import Two,second\n`);
    expect(made.answer.status, made.answer.text).toBe(201);
    expect(made.trips).toBe(1);
    expect(await rows('SELECT rows_total, created_by FROM background_jobs WHERE id = $1', [job(made.answer)])).toEqual([
      { rows_total: 2, created_by: site.users.admin.id },
    ]);
    expect(await rows('SELECT count(*)::int AS n FROM import_chunks WHERE job_id = $1', [job(made.answer)])).toEqual([
      { n: 1 },
    ]);
  });

  it('stages a file larger than one exchange carries (4 MiB) over a transaction of its own', async () => {
    const made = await start(`name,details\nTrip Import Large,${'x'.repeat(4 * 1024 * 1024 + 1)}\n`);
    expect(made.answer.status, made.answer.text).toBe(201);
    // a connection's opening, the statements, the commit: more than one exchange
    expect(made.trips).toBeGreaterThan(2);
    expect(await rows('SELECT rows_total FROM background_jobs WHERE id = $1', [job(made.answer)])).toEqual([
      { rows_total: 1 },
    ]);
  });
});
