import { sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Actor } from '../../auth/principal';
import type { Transaction } from '../../db/client';
import { insertEventsFrom } from '../../events/record-events';
import { defineChunkedJob, type JobProblem, type StagedLine } from '../../jobs/chunked-job';
import { JOB_ACTIONS, JOB_TYPES } from '../../jobs/job-codes';

/** The queue message kind of one chunk of a company import: `{kind, jobId, chunk}`. */
export const IMPORT_CHUNK_KIND = 'companies.import';

/** The columns a company import may name in its header row; `name` is required. */
export const IMPORT_COLUMNS = [
  'name',
  'email',
  'website',
  'industry',
  'details',
  'description',
  'phones',
  'domains',
] as const;
export type ImportColumn = (typeof IMPORT_COLUMNS)[number];

/** Rows the consumer imports in one transaction. */
export const IMPORT_CHUNK_ROWS = 1_000;

/**
 * A staged row: the header's columns and the row's values, or `_problem` when the row could not
 * even be read as a record (a wrong number of fields).
 */
export type StagedRow = Partial<Record<ImportColumn, string>> & { _problem?: string };

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

const MAX_LENGTH = {
  name: 255,
  email: 254,
  website: 2048,
  industry: 255,
  details: 10_000,
  description: 10_000,
} as const;
// The same rules as the company body's (companies.resource.ts, company-relations.ts).
const EMAIL = z.email();
const DOMAIN = /^(?=.{1,253}$)([a-z0-9-]{1,63}\.)+[a-z]{2,63}$/;
const MAX_PHONE = 40;

const list = (value: string | undefined) =>
  (value ?? '')
    .split(';')
    .map((item) => item.trim())
    .filter(Boolean);

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
    if (text !== null && text.length > MAX_LENGTH[field])
      return `${field} is longer than ${MAX_LENGTH[field]} characters`;
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

/**
 * Inserts or updates (by name, ignoring case, among live companies) and adds phones and domains
 * not yet there: one statement, the children joined to the ids the upsert returns. Every company
 * written gets an `imported` event (`{"created": true}` when it is new) and every phone and
 * domain added a `created` one, in the same statement.
 */
async function writeCompanies(tx: Transaction, who: Actor, jobId: number, companies: CompanyRow[]): Promise<void> {
  if (companies.length === 0) return;
  const installation = who.installationId;
  const user = who.userId;
  const children = companies.flatMap((company) => [
    ...company.domains.map((value) => ({ name: company.name, kind: 'domains', value })),
    ...company.phones.map((value) => ({ name: company.name, kind: 'phones', value })),
  ]);
  const parentOf = sql`jsonb_build_object('parent', jsonb_build_object('id', r.company_id, 'type', 'companies'), 'job', ${jobId}::int)`;
  // The entries of one kind its company does not have live yet, into that kind's table.
  const addChildren = (table: SQL, column: SQL, kind: 'domains' | 'phones') => sql`
      INSERT INTO ${table} (installation_id, company_id, ${column}, created_by, updated_by)
      SELECT ${installation}, e.company_id, e.value, ${user}::integer, ${user}::integer FROM entries e
       WHERE e.kind = ${kind}
         AND NOT EXISTS (SELECT 1 FROM ${table} c WHERE c.company_id = e.company_id AND c.state = 'active' AND c.${column} = e.value)
      RETURNING id, company_id`;
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
      -- matched by Postgres' own lower(), as the unique index is; xmax = 0 on a row just inserted
      RETURNING id, lower(name) AS key, (xmax = 0) AS created
    ),
    entries AS (
      SELECT u.id AS company_id, e.kind, e.value
        FROM jsonb_to_recordset(${JSON.stringify(children)}::jsonb) AS e(name text, kind text, value text)
        JOIN upserted u ON u.key = lower(e.name)
    ),
    domains AS (${addChildren(sql`company_domains`, sql`name`, 'domains')}),
    phones AS (${addChildren(sql`company_phones`, sql`number`, 'phones')}),
    imported AS (${insertEventsFrom(sql`upserted`, who, 'companies', 'imported', sql`jsonb_build_object('created', r.created, 'job', ${jobId}::int)`)}),
    domain_events AS (${insertEventsFrom(sql`domains`, who, 'domains', 'created', parentOf)})
    ${insertEventsFrom(sql`phones`, who, 'phones', 'created', parentOf)}`);
}

/**
 * The company import (`POST /v2/companies/import.csv`): each chunk's rows are checked against
 * the company rules (a bad row is a problem naming its line), merged by name, and written.
 */
export const companyImport = defineChunkedJob({
  kind: IMPORT_CHUNK_KIND,
  type: JOB_TYPES.companies,
  action: JOB_ACTIONS.import,
  part: 'import',
  chunkRows: IMPORT_CHUNK_ROWS,
  words: { job: 'import', done: 'imported' },
  async work(tx, job, lines: StagedLine[]): Promise<JobProblem[]> {
    const problems: JobProblem[] = [];
    const good: CompanyRow[] = [];
    for (const { line, data } of lines) {
      const checked = checkRow(data as StagedRow);
      if (typeof checked === 'string') problems.push({ line, reason: checked });
      else good.push(checked);
    }
    await writeCompanies(tx, job.who, job.id, mergeByName(good));
    return problems;
  },
});
