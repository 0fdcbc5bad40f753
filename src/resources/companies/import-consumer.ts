import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Env } from '../../app-env';
import { openDatabase, type Database, type Transaction } from '../../db/client';
import type { JobMessage } from '../../jobs/queue';

/** The queue message kind of one chunk of a company import: `{kind, jobId, chunk}`. */
export const IMPORT_CHUNK_KIND = 'companies.import';

/** The columns a company import may name in its header row; `name` is required. */
export const IMPORT_COLUMNS = ['name', 'email', 'website', 'industry', 'details', 'description', 'phones', 'domains'] as const;
export type ImportColumn = (typeof IMPORT_COLUMNS)[number];

/**
 * A staged row: the header's columns and the row's values, or `_problem` when the row could not
 * even be read as a record (a wrong number of fields).
 */
export type StagedRow = Partial<Record<ImportColumn, string>> & { _problem?: string };

export interface ImportProblem {
  line: number;
  reason: string;
}

/** A valid row, as it is written: `null` is a value the row does not give (an empty cell). */
interface CompanyRow {
  key: string;
  name: string;
  email: string | null;
  website: string | null;
  industry: string | null;
  details: string | null;
  description: string | null;
  phones: string[];
  domains: string[];
}

const MAX_LENGTH = { name: 255, email: 254, website: 2048, industry: 255, details: 10_000, description: 10_000 } as const;
// The same rules as the company body's (companies.resource.ts, company-relations.ts).
const EMAIL = z.email();
const DOMAIN = /^(?=.{1,253}$)([a-z0-9-]{1,63}\.)+[a-z]{2,63}$/;
const MAX_PHONE = 40;

const list = (value: string | undefined) => (value ?? '').split(';').map((item) => item.trim()).filter(Boolean);

/** A staged row checked against the company rules: the row to write, or why it cannot be. */
export function checkRow(data: StagedRow): CompanyRow | string {
  if (data._problem) return data._problem;
  const value = (name: Exclude<ImportColumn, 'phones' | 'domains'>) => {
    const text = (data[name] ?? '').trim();
    return text === '' ? null : text;
  };
  const name = value('name');
  if (name === null) return 'name must be set';
  for (const field of ['name', 'email', 'website', 'industry', 'details', 'description'] as const) {
    const text = value(field);
    if (text !== null && text.length > MAX_LENGTH[field]) return `${field} is longer than ${MAX_LENGTH[field]} characters`;
  }
  const email = value('email');
  if (email !== null && !EMAIL.safeParse(email).success) return `email "${email}" is not a valid email address`;
  const domains = [...new Set(list(data.domains).map((domain) => domain.toLowerCase()))];
  const badDomain = domains.find((domain) => !DOMAIN.test(domain));
  if (badDomain !== undefined) return `domains: "${badDomain}" is not a domain name such as example.com`;
  const phones = [...new Set(list(data.phones))];
  const badPhone = phones.find((phone) => phone.length > MAX_PHONE);
  if (badPhone !== undefined) return `phones: "${badPhone}" is longer than ${MAX_PHONE} characters`;
  return {
    key: name.toLowerCase(),
    name,
    email,
    website: value('website'),
    industry: value('industry'),
    details: value('details'),
    description: value('description'),
    phones,
    domains,
  };
}

/** Rows of one name (ignoring case) as one: later values win, phones and domains add up. */
function mergeByName(rows: CompanyRow[]): CompanyRow[] {
  const merged = new Map<string, CompanyRow>();
  for (const row of rows) {
    const earlier = merged.get(row.key);
    if (!earlier) {
      merged.set(row.key, row);
      continue;
    }
    merged.set(row.key, {
      key: row.key,
      name: earlier.name,
      email: row.email ?? earlier.email,
      website: row.website ?? earlier.website,
      industry: row.industry ?? earlier.industry,
      details: row.details ?? earlier.details,
      description: row.description ?? earlier.description,
      phones: [...new Set([...earlier.phones, ...row.phones])],
      domains: [...new Set([...earlier.domains, ...row.domains])],
    });
  }
  return [...merged.values()];
}

/** Thrown inside the transaction to roll the chunk back when the job was cancelled while it ran. */
class JobNoLongerRunning extends Error {}

interface ChunkState {
  fromLine: number;
  toLine: number;
  done: boolean;
  status: string;
  installationId: number;
  createdBy: number | null;
}

async function lockChunk(tx: Transaction, jobId: number, chunk: number): Promise<ChunkState | undefined> {
  const { rows } = await tx.execute(sql`
    SELECT c.from_line AS "fromLine", c.to_line AS "toLine", c.done_at IS NOT NULL AS done,
           j.status, j.installation_id AS "installationId", j.created_by AS "createdBy"
      FROM import_chunks c JOIN background_jobs j ON j.id = c.job_id
     WHERE c.job_id = ${jobId} AND c.chunk = ${chunk}
       FOR UPDATE OF c`);
  return rows[0] as ChunkState | undefined;
}

/**
 * Inserts or updates (by name, ignoring case, among live companies) and adds phones and domains
 * not yet there: one statement, the children joined to the ids the upsert returns.
 */
async function writeCompanies(tx: Transaction, state: ChunkState, companies: CompanyRow[]): Promise<void> {
  if (companies.length === 0) return;
  const installation = state.installationId;
  const user = state.createdBy;
  const children = companies.flatMap((company) => [
    ...company.domains.map((value) => ({ name: company.name, kind: 'domains', value })),
    ...company.phones.map((value) => ({ name: company.name, kind: 'phones', value })),
  ]);
  await tx.execute(sql`
    WITH upserted AS (
      INSERT INTO companies (installation_id, name, email, website, industry, details, description, created_by, updated_by)
      SELECT ${installation}, r.name, r.email, r.website, r.industry, r.details, r.description, ${user}::integer, ${user}::integer
        FROM jsonb_to_recordset(${JSON.stringify(companies)}::jsonb)
             AS r(name text, email text, website text, industry text, details text, description text)
      ON CONFLICT (installation_id, lower(name)) WHERE state = 'active'
      DO UPDATE SET email = coalesce(EXCLUDED.email, companies.email),
                    website = coalesce(EXCLUDED.website, companies.website),
                    industry = coalesce(EXCLUDED.industry, companies.industry),
                    details = coalesce(EXCLUDED.details, companies.details),
                    description = coalesce(EXCLUDED.description, companies.description),
                    updated_at = now(),
                    updated_by = EXCLUDED.updated_by
      -- matched by Postgres' own lower(), as the unique index is
      RETURNING id, lower(name) AS key
    ),
    entries AS (
      SELECT u.id AS company_id, e.kind, e.value
        FROM jsonb_to_recordset(${JSON.stringify(children)}::jsonb) AS e(name text, kind text, value text)
        JOIN upserted u ON u.key = lower(e.name)
    ),
    domains AS (
      INSERT INTO company_domains (installation_id, company_id, name, created_by, updated_by)
      SELECT ${installation}, e.company_id, e.value, ${user}::integer, ${user}::integer FROM entries e
       WHERE e.kind = 'domains'
         AND NOT EXISTS (SELECT 1 FROM company_domains d WHERE d.company_id = e.company_id AND d.state = 'active' AND d.name = e.value)
    )
    INSERT INTO company_phones (installation_id, company_id, number, created_by, updated_by)
    SELECT ${installation}, e.company_id, e.value, ${user}::integer, ${user}::integer FROM entries e
     WHERE e.kind = 'phones'
       AND NOT EXISTS (SELECT 1 FROM company_phones p WHERE p.company_id = e.company_id AND p.state = 'active' AND p.number = e.value)`);
}

/**
 * Counts the chunk into the job, keeps the first 1,000 problems by line, and completes the job
 * with its last rows. Only a queued or running job moves on: when the job was cancelled while
 * the chunk ran, the whole chunk rolls back, so the counters always match what was written.
 */
async function countIntoJob(tx: Transaction, jobId: number, handled: number, problems: ImportProblem[]): Promise<void> {
  const finished = sql`rows_done + ${handled} >= rows_total`;
  const { rows } = await tx.execute(sql`
    UPDATE background_jobs
       SET rows_done = rows_done + ${handled},
           rows_failed = rows_failed + ${problems.length},
           problems = ${problems.length === 0 ? sql`problems` : sql`(
             SELECT coalesce(jsonb_agg(p ORDER BY (p->>'line')::int), '[]'::jsonb)
               FROM (SELECT p FROM jsonb_array_elements(problems || ${JSON.stringify(problems)}::jsonb) AS p
                      ORDER BY (p->>'line')::int LIMIT 1000) AS first)`},
           status = CASE WHEN ${finished} THEN 'completed' ELSE 'running' END,
           started_at = coalesce(started_at, now()),
           finished_at = CASE WHEN ${finished} THEN now() ELSE finished_at END,
           updated_at = now()
     WHERE id = ${jobId} AND status IN ('queued', 'running')
    RETURNING id`);
  if (rows.length === 0) throw new JobNoLongerRunning();
}

/** The SQLSTATE of a database error, wherever it sits in the chain of causes (Drizzle wraps them). */
function sqlState(error: unknown): string | undefined {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/**
 * Why a chunk failed, as a job's reader may see it: a kind of failure, never the error's text
 * (which can hold SQL, values or addresses). The whole error goes to the log.
 */
function failureReason(error: unknown): string {
  const state = sqlState(error);
  if (state === undefined) return 'the import worker failed unexpectedly';
  switch (state.slice(0, 2)) {
    case '08':
    case '53':
    case '57':
    case '58':
      return 'the database was unavailable or overloaded';
    case '40':
      return 'the rows conflicted with other changes made at the same time';
    case '22':
    case '23':
      return 'the database refused a value or a row of these lines';
    default:
      return 'the database refused to write these lines';
  }
}

/**
 * Counts a failed try on the chunk row, with its reason, for the cron sweep
 * (`import-sweep.ts`). A statement of its own: the chunk's transaction has rolled back. If even
 * this fails (the database is gone), the queue's retry still happens; only the count is short.
 */
async function recordFailedAttempt(db: Database, jobId: number, chunk: number, error: unknown): Promise<void> {
  try {
    await db.http.execute(sql`
      UPDATE import_chunks SET attempts = attempts + 1, last_error = ${failureReason(error)}
       WHERE job_id = ${jobId} AND chunk = ${chunk} AND done_at IS NULL`);
  } catch (recording) {
    console.error(`jobs: ${IMPORT_CHUNK_KIND} could not record the failed attempt of job ${jobId} chunk ${chunk}:`, recording);
  }
}

/**
 * Imports one chunk of a company import, all of it in one transaction: a consumer that dies
 * half-way leaves nothing, and the queue's redelivery does the chunk whole. The chunk row stays
 * locked while it runs and is marked done in the same transaction, so a message delivered twice
 * finds it done and does nothing. A failure is counted on the chunk row and thrown again, so the
 * queue retries the message.
 */
export async function consumeImportChunk(message: JobMessage, env: Env): Promise<void> {
  const jobId = Number(message.jobId);
  const chunk = Number(message.chunk);
  if (!Number.isInteger(jobId) || !Number.isInteger(chunk)) {
    console.warn(`jobs: ${IMPORT_CHUNK_KIND} message without an integer jobId and chunk; dropped`);
    return;
  }
  const db = openDatabase(env);
  try {
    await db.transaction(async (tx) => {
      const state = await lockChunk(tx, jobId, chunk);
      if (!state || state.done) return;
      const staged = sql`import_rows WHERE job_id = ${jobId} AND line BETWEEN ${state.fromLine} AND ${state.toLine}`;
      if (state.status !== 'queued' && state.status !== 'running') {
        // Cancelled (or failed): the chunk is not run; its staged rows are no longer needed.
        await tx.execute(sql`DELETE FROM ${staged}`);
        return;
      }
      const { rows } = await tx.execute(sql`SELECT line, data FROM ${staged} ORDER BY line`);
      const problems: ImportProblem[] = [];
      const good: CompanyRow[] = [];
      for (const row of rows as Array<{ line: number; data: StagedRow }>) {
        const checked = checkRow(row.data);
        if (typeof checked === 'string') problems.push({ line: row.line, reason: checked });
        else good.push(checked);
      }
      await writeCompanies(tx, state, mergeByName(good));
      await tx.execute(sql`UPDATE import_chunks SET done_at = now() WHERE job_id = ${jobId} AND chunk = ${chunk}`);
      await tx.execute(sql`DELETE FROM ${staged}`);
      await countIntoJob(tx, jobId, rows.length, problems);
    });
  } catch (error) {
    if (error instanceof JobNoLongerRunning) return;
    await recordFailedAttempt(db, jobId, chunk, error);
    throw error;
  } finally {
    await db.close();
  }
}
