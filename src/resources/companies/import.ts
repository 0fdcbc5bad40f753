import { sql } from 'drizzle-orm';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../app-env';
import { AGENTS, requireRole } from '../../auth/access';
import { readBodyBytes } from '../../http/body-bytes';
import { ApiError } from '../../http/errors';
import { addRoute } from '../../http/route';
import type { JobMessage } from '../../jobs/queue';
import { errorBodySchema } from '../../openapi/schemas';
import { IMPORT_CHUNK_KIND, IMPORT_COLUMNS, type ImportColumn, type StagedRow } from './import-consumer';
import { parseCsv, type CsvRecord } from './import-csv';

export const MAX_IMPORT_BYTES = 20 * 1024 * 1024;
export const MAX_IMPORT_ROWS = 200_000;
/** Rows the consumer imports in one transaction. */
export const IMPORT_CHUNK_ROWS = 1_000;
/** Rows staged per statement. */
const STAGE_BATCH_ROWS = 5_000;
/** The queue takes at most 100 messages per `sendBatch`. */
const SEND_BATCH_MESSAGES = 100;

const JOB_TYPE_COMPANIES = 1;
const JOB_ACTION_IMPORT = 1;

const tooLarge = (detail: string) => new ApiError(413, [{ code: 'tooLarge', source: 'body', detail }]);
const sizeLimit = () => tooLarge(`the CSV is larger than the limit of ${MAX_IMPORT_BYTES} bytes (20 MB); split it into several imports`);

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw ApiError.invalid('body', 'the CSV is not valid UTF-8 text');
  }
}

const CSV_TYPE = /^(text|application)\/csv\b/i;
const notCsv = () =>
  new ApiError(415, [{ code: 'unsupportedMediaType', source: 'body', detail: 'send the CSV as text/csv, or as the field "file" of multipart/form-data' }]);

/** The CSV text of the request: the body itself (`text/csv`), or the `file` field of a multipart form. */
async function readCsvText(c: Context<AppEnv>): Promise<string> {
  const type = c.req.header('content-type') ?? '';
  if (CSV_TYPE.test(type)) return decodeUtf8(await readBodyBytes(c.req.raw, MAX_IMPORT_BYTES, sizeLimit));
  if (!/^multipart\/form-data\b/i.test(type)) throw notCsv();
  const bytes = await readBodyBytes(c.req.raw, MAX_IMPORT_BYTES, sizeLimit);
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { 'content-type': type } }).formData();
  } catch {
    throw ApiError.invalid('body', 'the multipart form could not be read');
  }
  // Workers' types give `string` only; the runtime gives a File for an uploaded file.
  const file = form.get('file') as unknown as File | string | null;
  if (file === null) throw ApiError.invalid('file', 'the form has no field "file" holding the CSV');
  if (typeof file === 'string') return file;
  if (file.type && !CSV_TYPE.test(file.type) && !/^text\/plain\b/i.test(file.type)) throw notCsv();
  return decodeUtf8(new Uint8Array(await file.arrayBuffer()));
}

/** The header row's columns, each a company field: unknown, repeated or missing `name` is a 400. */
function headerColumns(header: CsvRecord | undefined): ImportColumn[] {
  if (!header) throw ApiError.invalid('body', 'the CSV is empty; its first line must be a header row naming the columns, such as name,email,domains');
  const names = header.fields.map((name) => name.trim().toLowerCase());
  const unknown = names.filter((name) => !(IMPORT_COLUMNS as readonly string[]).includes(name));
  if (unknown.length) {
    throw ApiError.invalid('header', `unknown columns: ${unknown.map((name) => JSON.stringify(name)).join(', ')}; the columns are ${IMPORT_COLUMNS.join(', ')}`);
  }
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated) throw ApiError.invalid('header', `the column "${repeated}" appears twice`);
  if (!names.includes('name')) {
    throw ApiError.invalid('header', 'no "name" column: the first line must be a header row naming the columns, and name is required');
  }
  return names as ImportColumn[];
}

/** A record as a staged row; a record that cannot be read as one becomes the row's problem. */
function stagedRow(columns: ImportColumn[], record: CsvRecord): StagedRow {
  const { fields } = record;
  const extra = fields.slice(columns.length);
  if (fields.length < columns.length || extra.some((value) => value.trim() !== '')) {
    return { _problem: `has ${fields.length} fields; the header has ${columns.length}` };
  }
  if (fields.some((value) => value.includes('\0'))) return { _problem: 'contains a NUL (\\u0000) character' };
  return Object.fromEntries(columns.map((column, index) => [column, fields[index]!]));
}

interface Chunk {
  chunk: number;
  fromLine: number;
  toLine: number;
}

function chunksOf(records: CsvRecord[]): Chunk[] {
  const chunks: Chunk[] = [];
  for (let start = 0; start < records.length; start += IMPORT_CHUNK_ROWS) {
    const last = Math.min(start + IMPORT_CHUNK_ROWS, records.length) - 1;
    chunks.push({ chunk: chunks.length + 1, fromLine: records[start]!.line, toLine: records[last]!.line });
  }
  return chunks;
}

/**
 * Checks the file, stages its rows and queues one message per chunk. Rows are checked by the
 * consumer, which reports each bad one with its line; only what makes the whole file unusable
 * is refused here, before anything is written.
 */
async function importCompanies(c: Context<AppEnv>) {
  const who = c.var.principal;
  requireRole(who, AGENTS);
  const records = parseCsv(await readCsvText(c));
  const columns = headerColumns(records[0]);
  const rows = records.slice(1);
  if (rows.length === 0) throw ApiError.invalid('body', 'the CSV has a header row but no rows to import');
  if (rows.length > MAX_IMPORT_ROWS) throw tooLarge(`the CSV has ${rows.length} rows; the limit is ${MAX_IMPORT_ROWS} rows`);
  const chunks = chunksOf(rows);

  const jobId = await c.var.db.transaction(async (tx) => {
    const created = await tx.execute(sql`
      INSERT INTO background_jobs (installation_id, type, action, status, rows_total, created_by, payload)
      VALUES (${who.installationId}, ${JOB_TYPE_COMPANIES}, ${JOB_ACTION_IMPORT}, 'queued', ${rows.length}, ${who.userId},
              ${JSON.stringify({ columns, chunks: chunks.length })}::jsonb)
      RETURNING id`);
    const id = created.rows[0]!.id as number;
    for (let start = 0; start < rows.length; start += STAGE_BATCH_ROWS) {
      const batch = rows.slice(start, start + STAGE_BATCH_ROWS).map((record) => ({ line: record.line, data: stagedRow(columns, record) }));
      await tx.execute(sql`
        INSERT INTO import_rows (job_id, line, data)
        SELECT ${id}, r.line, r.data FROM jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) AS r(line integer, data jsonb)`);
    }
    await tx.execute(sql`
      INSERT INTO import_chunks (job_id, chunk, from_line, to_line)
      SELECT ${id}, r.chunk, r."fromLine", r."toLine"
        FROM jsonb_to_recordset(${JSON.stringify(chunks)}::jsonb) AS r(chunk integer, "fromLine" integer, "toLine" integer)`);
    return id;
  });

  // Sent once the rows are committed, so a consumer never looks for a chunk that is not there yet.
  try {
    for (let start = 0; start < chunks.length; start += SEND_BATCH_MESSAGES) {
      await c.env.JOBS.sendBatch(
        chunks.slice(start, start + SEND_BATCH_MESSAGES).map(({ chunk }) => ({ body: { kind: IMPORT_CHUNK_KIND, jobId, chunk } satisfies JobMessage })),
      );
    }
  } catch (error) {
    await c.var.db.http.execute(sql`
      UPDATE background_jobs SET status = 'failed', finished_at = now(), updated_at = now(),
             problems = '[{"reason": "the import could not be queued; send the file again"}]'::jsonb
       WHERE id = ${jobId} AND status IN ('queued', 'running')`);
    throw error;
  }
  return c.body(null, 201, { Location: `/v2/backgroundjobs/${jobId}.json` });
}

const error = { description: 'error', schema: errorBodySchema };

/** `POST /v2/companies/import.csv`: starts a background job that imports companies from a CSV. */
export function importRoute(app: Hono<AppEnv>): void {
  addRoute(app, {
    method: 'post',
    path: '/v2/companies/import.csv',
    tag: 'companies',
    summary: 'Import companies from a CSV (header row: name, email, website, industry, details, description, phones, domains); runs as a background job',
    body: { schema: z.string().describe('CSV text with a header row; or multipart/form-data with the CSV in the field "file"'), required: true, contentType: 'text/csv' },
    responses: {
      201: { description: 'the import job was started; no body, its `Location` header names the job: /v2/backgroundjobs/{jobId}.json' },
      400: error, 401: error, 403: error, 413: error, 415: error,
    },
  }, importCompanies);
}
