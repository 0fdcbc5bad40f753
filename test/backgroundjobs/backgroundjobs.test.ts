// Background jobs: a job's progress by id, and its cancellation addressed by integer type,
// action and id. The queue work that fills the table comes later: rows are inserted here.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';

let site: SeededInstallation;
let other: SeededInstallation;
let key: string;

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const COMPANIES = 1;
const IMPORT = 1;
const BULK_UPDATE = 2;

interface JobRow {
  id: number;
  status: string;
  updated_at: string;
  finished_at: string | null;
}

async function insertJob(
  values: {
    installationId?: number;
    type?: number;
    action?: number;
    status?: string;
    createdBy?: number | null;
    extra?: string;
  } = {},
): Promise<number> {
  const [row] = await rows<{ id: number }>(
    `INSERT INTO background_jobs (installation_id, type, action, status, created_by, rows_total, rows_done, rows_failed, problems, payload, started_at, finished_at)
     VALUES ($1, $2, $3, $4, $5, 10, 4, 1, '[{"line": 3, "reason": "name must be set"}]', '{"secret": "internal"}',
             CASE WHEN $4 <> 'queued' THEN now() END, CASE WHEN $4 IN ('completed', 'failed') THEN now() END)
     RETURNING id`,
    [
      values.installationId ?? site.id,
      values.type ?? COMPANIES,
      values.action ?? IMPORT,
      values.status ?? 'queued',
      values.createdBy === undefined ? site.users.agent.id : values.createdBy,
    ],
  );
  return row!.id;
}

async function job(id: number): Promise<JobRow> {
  const [row] = await rows<JobRow>(
    `SELECT id, status, updated_at::text, finished_at::text FROM background_jobs WHERE id = $1`,
    [id],
  );
  return row!;
}

const cancelPath = (type: number | string, action: number | string, id: number | string) =>
  `/v2/backgroundjobs/${type}/${action}/${id}.json`;

/** A DELETE that must be refused and leave the job exactly as it was. */
async function refusesCancel(path: string, jobId: number, status: number, source: string | null, apiKey = key) {
  const before = await job(jobId);
  expectError(await api(path, { method: 'DELETE', key: apiKey }), status, source);
  expect(await job(jobId)).toEqual(before);
}

beforeAll(async () => {
  site = await newInstallation('jobs');
  other = await newInstallation('jobs-other');
  key = site.users.agent.apiKey;
});

describe('GET /v2/backgroundjobs/{jobId}.json', () => {
  it('answers 200 with the wrapped job: integer codes as jobType and jobAction, status and progress', async () => {
    const id = await insertJob({ status: 'running', action: BULK_UPDATE });
    const response = await api(`/v2/backgroundjobs/${id}.json`, { key });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      backgroundjob: {
        id,
        type: 'backgroundjobs',
        jobType: COMPANIES,
        jobAction: BULK_UPDATE,
        status: 'running',
        rowsTotal: 10,
        rowsDone: 4,
        rowsFailed: 1,
        problems: [{ line: 3, reason: 'name must be set' }],
        createdAt: expect.stringMatching(ISO),
        createdBy: { id: site.users.agent.id, type: 'users' },
        updatedAt: expect.stringMatching(ISO),
        startedAt: expect.stringMatching(ISO),
        finishedAt: null,
      },
      included: {},
    });
    expect(response.text).not.toContain('secret');
  });

  it('reads a job of the system (no creator) with createdBy null', async () => {
    const id = await insertJob({ createdBy: null });
    const response = await api(`/v2/backgroundjobs/${id}.json`, { key: site.users.owner.apiKey });
    expect(response.body.backgroundjob).toMatchObject({ createdBy: null, status: 'queued', startedAt: null });
  });

  it('includes the user who started it on request', async () => {
    const id = await insertJob();
    for (const includes of ['users', 'all']) {
      const response = await api(`/v2/backgroundjobs/${id}.json`, { key, query: { includes } });
      expect(response.status, response.text).toBe(200);
      expect(response.body.included).toEqual({
        users: [expect.objectContaining({ id: site.users.agent.id, type: 'users', role: 'agent' })],
      });
    }
    expectError(await api(`/v2/backgroundjobs/${id}.json`, { key, query: { includes: 'companies' } }), 400, 'includes');
  });

  it("answers 404 for an absent job and for another installation's", async () => {
    const theirs = await insertJob({ installationId: other.id, createdBy: other.users.agent.id });
    expectError(await api(`/v2/backgroundjobs/${theirs}.json`, { key }), 404, 'jobId');
    expectError(await api('/v2/backgroundjobs/987654321.json', { key }), 404, 'jobId');
    expect((await api(`/v2/backgroundjobs/${theirs}.json`, { key: other.users.agent.apiKey })).status).toBe(200);
  });

  it('answers 400 naming jobId when it is not a positive integer', async () => {
    for (const bad of ['abc', '0', '-1', '99999999999'])
      expectError(await api(`/v2/backgroundjobs/${bad}.json`, { key }), 400, 'jobId');
  });

  it('answers 403 to a collaborator and 401 without a credential', async () => {
    const id = await insertJob();
    expectError(await api(`/v2/backgroundjobs/${id}.json`, { key: site.users.collaborator.apiKey }), 403, null);
    expectError(await api(`/v2/backgroundjobs/${id}.json`), 401, null);
  });
});

describe('DELETE /v2/backgroundjobs/{type}/{action}/{id}.json', () => {
  for (const status of ['queued', 'running']) {
    it(`cancels a ${status} job: 204, status cancelled, finishedAt set`, async () => {
      const id = await insertJob({ status });
      const before = await job(id);
      const response = await api(cancelPath(COMPANIES, IMPORT, id), { method: 'DELETE', key });
      expect(response.status, response.text).toBe(204);
      expect(response.text).toBe('');
      const after = await job(id);
      expect(after.status).toBe('cancelled');
      expect(after.finished_at).not.toBeNull();
      expect(after.updated_at >= before.updated_at).toBe(true);
      const read = await api(`/v2/backgroundjobs/${id}.json`, { key });
      expect(read.body.backgroundjob).toMatchObject({ status: 'cancelled', finishedAt: expect.stringMatching(ISO) });
    });
  }

  it('answers 204 again to a job already cancelled, and leaves it', async () => {
    const id = await insertJob();
    expect((await api(cancelPath(COMPANIES, IMPORT, id), { method: 'DELETE', key })).status).toBe(204);
    const cancelled = await job(id);
    const again = await api(cancelPath(COMPANIES, IMPORT, id), { method: 'DELETE', key: site.users.admin.apiKey });
    expect(again.status, again.text).toBe(204);
    expect(await job(id)).toEqual(cancelled);
  });

  for (const status of ['completed', 'failed']) {
    it(`answers 409 to a ${status} job, which stays ${status}`, async () => {
      const id = await insertJob({ status });
      await refusesCancel(cancelPath(COMPANIES, IMPORT, id), id, 409, 'id');
    });
  }

  it("answers 404 when the type or the action is not the job's, and leaves it", async () => {
    const id = await insertJob({ action: BULK_UPDATE });
    await refusesCancel(cancelPath(COMPANIES, IMPORT, id), id, 404, 'id');
    await refusesCancel(cancelPath(2, BULK_UPDATE, id), id, 404, 'id');
    await refusesCancel(cancelPath(40000, BULK_UPDATE, id), id, 404, 'id');
    await refusesCancel(cancelPath(COMPANIES, 2_147_483_647, id), id, 404, 'id');
    expect((await job(id)).status).toBe('queued');
  });

  it("answers 404 to another installation's job, which stays queued", async () => {
    const theirs = await insertJob({ installationId: other.id, createdBy: other.users.agent.id });
    await refusesCancel(cancelPath(COMPANIES, IMPORT, theirs), theirs, 404, 'id');
    expectError(await api(cancelPath(COMPANIES, IMPORT, 987654321), { method: 'DELETE', key }), 404, 'id');
  });

  it('answers 400 naming the path part that is not a positive integer', async () => {
    const id = await insertJob();
    await refusesCancel(cancelPath('companies', IMPORT, id), id, 400, 'type');
    await refusesCancel(cancelPath(0, IMPORT, id), id, 400, 'type');
    await refusesCancel(cancelPath(COMPANIES, 'import', id), id, 400, 'action');
    await refusesCancel(cancelPath(COMPANIES, -1, id), id, 400, 'action');
    await refusesCancel(cancelPath(COMPANIES, IMPORT, 'x'), id, 400, 'id');
  });

  it('answers 403 to a collaborator, and the job stays queued', async () => {
    const id = await insertJob();
    await refusesCancel(cancelPath(COMPANIES, IMPORT, id), id, 403, null, site.users.collaborator.apiKey);
  });
});

describe('OpenAPI', () => {
  it('documents both operations', async () => {
    const doc = (await api('/v2/openapi.json')).body;
    expect(doc.paths['/v2/backgroundjobs/{jobId}.json'].get.responses['200']).toBeDefined();
    const cancel = doc.paths['/v2/backgroundjobs/{type}/{action}/{id}.json'].delete;
    expect(cancel.parameters.map((p: { name: string }) => p.name)).toEqual(['Idempotency-Key', 'type', 'action', 'id']);
    expect(Object.keys(cancel.responses)).toEqual(expect.arrayContaining(['204', '404', '409']));
  });
});
