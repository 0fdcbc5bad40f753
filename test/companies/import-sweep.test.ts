// An import that can no longer finish (a chunk the queue gave up on, or no progress for 30
// minutes) is failed by the cron sweep, through the real cron trigger in workerd, and read back
// through GET /v2/backgroundjobs/{id}.json. Also end to end: a chunk failing for real in the
// queue consumer counts its attempts, and once they are used up the sweep fails the job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { runCron } from '../support/cron';
import { newInstallation, rows } from '../support/db';
import { readJob, startImport } from '../support/jobs';
import { sendJobMessage } from '../support/queue';

let site: SeededInstallation;
let key: string;

beforeAll(async () => {
  site = await newInstallation('import-sweep');
  key = site.users.agent.apiKey;
});

const MINUTE = 60_000;

interface ChunkSetup {
  rows: number;
  done?: boolean;
  attempts?: number;
  lastError?: string | null;
}

interface JobSetup {
  status: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
  /** how long ago the job last moved */
  idleMinutes: number;
  chunks: ChunkSetup[];
  problems?: { line?: number; reason: string }[];
  rowsFailed?: number;
}

/**
 * An import job as the request and the consumer leave it, written directly: chunks of
 * consecutive lines from line 2, those `done` counted into the job. No message is queued.
 */
async function importJob(setup: JobSetup): Promise<number> {
  const total = setup.chunks.reduce((sum, chunk) => sum + chunk.rows, 0);
  const done = setup.chunks.filter((chunk) => chunk.done).reduce((sum, chunk) => sum + chunk.rows, 0);
  const idle = `${setup.idleMinutes} minutes`;
  const [job] = await rows<{ id: number }>(
    `INSERT INTO background_jobs (installation_id, type, action, status, rows_total, rows_done, rows_failed, problems, created_by,
                                  created_at, updated_at, started_at, finished_at)
     VALUES ($1, 1, 1, $2, $3, $4, $5, $6, $7, now() - $8::interval - interval '1 minute', now() - $8::interval,
             CASE WHEN $2 <> 'queued' THEN now() - $8::interval - interval '1 minute' END,
             CASE WHEN $2 IN ('completed', 'failed', 'cancelled') THEN now() - $8::interval END)
     RETURNING id`,
    [
      site.id,
      setup.status,
      total,
      done,
      setup.rowsFailed ?? 0,
      JSON.stringify(setup.problems ?? []),
      site.users.agent.id,
      idle,
    ],
  );
  let line = 2;
  for (const [index, chunk] of setup.chunks.entries()) {
    await rows(
      `INSERT INTO import_chunks (job_id, chunk, from_line, to_line, done_at, attempts, last_error)
       VALUES ($1, $2, $3, $4, CASE WHEN $5 THEN now() - $6::interval END, $7, $8)`,
      [
        job!.id,
        index + 1,
        line,
        line + chunk.rows - 1,
        chunk.done ?? false,
        idle,
        chunk.attempts ?? 0,
        chunk.lastError ?? null,
      ],
    );
    line += chunk.rows;
  }
  return job!.id;
}

const REFUSED = 'the database refused to write these lines';

describe('a chunk the queue gave up on (6 failed attempts)', () => {
  let jobId = 0;
  let swept: Record<string, any>;

  beforeAll(async () => {
    jobId = await importJob({
      status: 'running',
      idleMinutes: 1,
      rowsFailed: 2,
      problems: [
        { line: 5, reason: 'name must be set' },
        { line: 9, reason: 'name must be set' },
      ],
      chunks: [
        { rows: 1000, done: true, attempts: 1, lastError: REFUSED },
        { rows: 1000, attempts: 6, lastError: REFUSED },
        { rows: 500 },
      ],
    });
    await runCron(new Date());
    swept = await readJob(key, jobId);
  });

  it('fails the job: every chunk not done listed, its rows done and failed', async () => {
    expect(swept).toMatchObject({
      status: 'failed',
      rowsTotal: 2500,
      rowsDone: 2500,
      rowsFailed: 2 + 1500,
      problems: [
        { line: 5, reason: 'name must be set' },
        { line: 9, reason: 'name must be set' },
        { line: 1002, reason: `lines 1002–2001 could not be imported after 6 attempts: ${REFUSED}` },
        { line: 2002, reason: 'lines 2002–2501 were not imported: the import stopped when other lines failed' },
      ],
    });
    expect(swept.problems).toHaveLength(4);
    expect(Date.now() - Date.parse(swept.finishedAt)).toBeLessThan(MINUTE);
    expect(swept.updatedAt).toBe(swept.finishedAt);
  });

  it('a second run, and runs side by side, change nothing more', async () => {
    await runCron(new Date());
    await Promise.all([runCron(new Date()), runCron(new Date())]);
    expect(await readJob(key, jobId)).toEqual(swept);
  });

  it('a failed job cannot be cancelled any more: 409', async () => {
    const response = await api(`/v2/backgroundjobs/1/1/${jobId}.json`, { method: 'DELETE', key });
    expect(response.status, response.text).toBe(409);
  });
});

describe('runs side by side on a job to fail', () => {
  it('fail it once: the problems are not doubled', async () => {
    const jobId = await importJob({
      status: 'running',
      idleMinutes: 0,
      chunks: [{ rows: 3, attempts: 7, lastError: REFUSED }],
    });
    await Promise.all([runCron(new Date()), runCron(new Date()), runCron(new Date())]);
    expect(await readJob(key, jobId)).toMatchObject({
      status: 'failed',
      rowsDone: 3,
      rowsFailed: 3,
      problems: [{ line: 2, reason: `lines 2–4 could not be imported after 7 attempts: ${REFUSED}` }],
    });
  });
});

describe('what the sweep leaves alone', () => {
  it('a running job with failed attempts left (2, or 5 of 6) and recent progress', async () => {
    const two = await importJob({
      status: 'running',
      idleMinutes: 1,
      chunks: [
        { rows: 10, done: true },
        { rows: 10, attempts: 2, lastError: REFUSED },
      ],
    });
    const five = await importJob({
      status: 'running',
      idleMinutes: 29,
      chunks: [{ rows: 10, attempts: 5, lastError: REFUSED }, { rows: 10 }],
    });
    const queued = await importJob({ status: 'queued', idleMinutes: 29, chunks: [{ rows: 10 }] });
    const before = [await readJob(key, two), await readJob(key, five), await readJob(key, queued)];
    await runCron(new Date());
    expect([await readJob(key, two), await readJob(key, five), await readJob(key, queued)]).toEqual(before);
    expect(before.map((job) => job.status)).toEqual(['running', 'running', 'queued']);
  });

  it('a completed, cancelled or failed job, even with a dead chunk and long idle', async () => {
    const ids = [];
    for (const status of ['completed', 'cancelled', 'failed'] as const) {
      ids.push(
        await importJob({
          status,
          idleMinutes: 120,
          chunks: [
            { rows: 10, done: true },
            { rows: 10, attempts: 6, lastError: REFUSED },
          ],
        }),
      );
    }
    const before = await Promise.all(ids.map((id) => readJob(key, id)));
    await runCron(new Date());
    expect(await Promise.all(ids.map((id) => readJob(key, id)))).toEqual(before);
  });

  it('a running job idle for long whose chunks are all done', async () => {
    const jobId = await importJob({ status: 'running', idleMinutes: 120, chunks: [{ rows: 10, done: true }] });
    const before = await readJob(key, jobId);
    await runCron(new Date());
    expect(await readJob(key, jobId)).toEqual(before);
  });

  it('a run fired for a moment ahead of the clock fails no live import early', async () => {
    const jobId = await importJob({ status: 'running', idleMinutes: 1, chunks: [{ rows: 10 }] });
    const before = await readJob(key, jobId);
    await runCron(new Date(Date.now() + 24 * 60 * MINUTE));
    expect(await readJob(key, jobId)).toEqual(before);
  });
});

describe('an import that made no progress for 30 minutes', () => {
  it('is failed with each chunk not done listed, its last error said', async () => {
    const jobId = await importJob({
      status: 'running',
      idleMinutes: 31,
      chunks: [{ rows: 4, done: true }, { rows: 4, attempts: 2, lastError: REFUSED }, { rows: 2 }],
    });
    await runCron(new Date());
    const job = await readJob(key, jobId);
    expect(job).toMatchObject({
      status: 'failed',
      rowsTotal: 10,
      rowsDone: 10,
      rowsFailed: 6,
      problems: [
        { line: 6, reason: 'lines 6–9 were not imported: the import made no progress for 30 minutes' },
        { line: 10, reason: 'lines 10–11 were not imported: the import made no progress for 30 minutes' },
      ],
    });
    expect(Date.now() - Date.parse(job.finishedAt)).toBeLessThan(MINUTE);
  });

  it('a queued job that never started too', async () => {
    const jobId = await importJob({ status: 'queued', idleMinutes: 45, chunks: [{ rows: 3 }] });
    await runCron(new Date());
    expect(await readJob(key, jobId)).toMatchObject({
      status: 'failed',
      startedAt: null,
      rowsDone: 3,
      rowsFailed: 3,
      problems: [{ line: 2, reason: 'lines 2–4 were not imported: the import made no progress for 30 minutes' }],
    });
  });
});

describe('end to end: a chunk that fails in the consumer', () => {
  // A trigger of this test's own makes the chunk's statement fail at the database on every
  // delivery, after part of it was written, as a row the database refuses would.
  const trigger = `test_import_sweep_${Math.random().toString(36).slice(2, 10)}`;
  beforeAll(async () => {
    await rows(`CREATE OR REPLACE FUNCTION test_import_sweep_refuses() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'test: the database refuses this row'; END $$`);
    await rows(`CREATE TRIGGER ${trigger} BEFORE INSERT ON companies FOR EACH ROW
      WHEN (NEW.installation_id = ${site.id} AND NEW.name = 'Sweep Refused') EXECUTE FUNCTION test_import_sweep_refuses()`);
  });
  afterAll(async () => {
    await rows(`DROP TRIGGER IF EXISTS ${trigger} ON companies`);
  });

  async function chunkRow(jobId: number) {
    const [chunk] = await rows<{ attempts: number; last_error: string | null; done: boolean }>(
      'SELECT attempts, last_error, done_at IS NOT NULL AS done FROM import_chunks WHERE job_id = $1 AND chunk = 1',
      [jobId],
    );
    return chunk!;
  }

  async function attemptsReach(jobId: number, least: number, timeoutMs = 15_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const chunk = await chunkRow(jobId);
      if (chunk.attempts >= least) return chunk;
      if (Date.now() > deadline)
        throw new Error(`chunk of job ${jobId} has ${chunk.attempts} attempts, not ${least}, after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const companiesNamed = (name: string) =>
    rows('SELECT id FROM companies WHERE installation_id = $1 AND name = $2', [site.id, name]);

  it('counts each failed attempt with a reason free of internals, writes nothing, and the sweep fails the job once they are used up', async () => {
    const jobId = await startImport(key, 'name,domains\nSweep Written First,first.test\nSweep Refused,refused.test\n');

    // The queue's first delivery fails: counted, with a reason saying what kind of failure.
    const first = await attemptsReach(jobId, 1);
    expect(first).toMatchObject({ last_error: REFUSED, done: false });
    expect(first.last_error).not.toMatch(/test:|refuses this row|INSERT|companies/);
    expect(await readJob(key, jobId)).toMatchObject({ status: 'queued', rowsDone: 0, rowsFailed: 0, problems: [] });
    // The chunk rolled back whole: not even the row before the refused one is written.
    expect(await companiesNamed('Sweep Written First')).toEqual([]);

    // Deliveries of the same message (redeliveries) count too, until the six are used up.
    for (let attempts = (await chunkRow(jobId)).attempts; attempts < 6; attempts = (await chunkRow(jobId)).attempts) {
      await sendJobMessage({ kind: 'companies.import', jobId, chunk: 1 });
      await attemptsReach(jobId, attempts + 1);
    }

    await runCron(new Date());
    const failed = await readJob(key, jobId);
    expect(failed).toMatchObject({ status: 'failed', rowsTotal: 2, rowsDone: 2, rowsFailed: 2 });
    expect(failed.problems).toHaveLength(1);
    expect(failed.problems[0].line).toBe(2);
    expect(failed.problems[0].reason).toMatch(
      new RegExp(`^lines 2–3 could not be imported after ([6-9]|\\d\\d) attempts: ${REFUSED}$`),
    );

    // A delivery after that finds the job failed: it runs nothing, counts no attempt, and lets
    // the staged rows go.
    const attempts = (await chunkRow(jobId)).attempts;
    await sendJobMessage({ kind: 'companies.import', jobId, chunk: 1 });
    const deadline = Date.now() + 15_000;
    while ((await rows('SELECT 1 FROM import_rows WHERE job_id = $1', [jobId])).length > 0) {
      if (Date.now() > deadline) throw new Error('the staged rows of a failed job were not let go');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await chunkRow(jobId)).toEqual({ attempts, last_error: REFUSED, done: false });
    expect(await readJob(key, jobId)).toEqual(failed);
    expect(await companiesNamed('Sweep Written First')).toEqual([]);
  }, 60_000);
});
