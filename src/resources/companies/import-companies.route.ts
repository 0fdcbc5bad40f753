import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../app-env';
import { AGENTS } from '../../auth/access';
import { readBodyBytes } from '../../http/body-bytes';
import { ApiError } from '../../http/errors';
import { errorResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { companyImport, IMPORT_COLUMNS, type ImportColumn, type StagedRow } from './import-job';
import { parseCsv, type CsvRecord } from './import-csv';

export const MAX_IMPORT_BYTES = 20 * 1024 * 1024;
export const MAX_IMPORT_ROWS = 200_000;

const tooLarge = (detail: string) => new ApiError(413, [{ code: 'tooLarge', source: 'body', detail }]);
const sizeLimit = () =>
  tooLarge(`the CSV is larger than the limit of ${MAX_IMPORT_BYTES} bytes (20 MB); split it into several imports`);

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw ApiError.invalid('body', 'the CSV is not valid UTF-8 text');
  }
}

const CSV_TYPE = /^(text|application)\/csv\b/i;
const notCsv = () =>
  new ApiError(415, [
    {
      code: 'unsupportedMediaType',
      source: 'body',
      detail: 'send the CSV as text/csv, or as the field "file" of multipart/form-data',
    },
  ]);

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
  if (!header)
    throw ApiError.invalid(
      'body',
      'the CSV is empty; its first line must be a header row naming the columns, such as name,email,domains',
    );
  const names = header.fields.map((name) => name.trim().toLowerCase());
  const unknown = names.filter((name) => !(IMPORT_COLUMNS as readonly string[]).includes(name));
  if (unknown.length) {
    throw ApiError.invalid(
      'header',
      `unknown columns: ${unknown.map((name) => JSON.stringify(name)).join(', ')}; the columns are ${IMPORT_COLUMNS.join(', ')}`,
    );
  }
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated) throw ApiError.invalid('header', `the column "${repeated}" appears twice`);
  if (!names.includes('name')) {
    throw ApiError.invalid(
      'header',
      'no "name" column: the first line must be a header row naming the columns, and name is required',
    );
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

/**
 * `POST /v2/companies/import.csv`: checks the file, stages its rows and queues one message per
 * chunk (`import-job.ts`). Rows are checked by the job, which reports each bad one with its
 * line; only what makes the whole file unusable is refused here, before anything is written.
 */
export const importCompaniesRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/companies/import.csv',
    tag: 'Companies',
    operationId: 'importCompanies',
    roles: AGENTS,
    summary: 'Import companies from a CSV; runs as a background job',
    description: `Header row: ${IMPORT_COLUMNS.join(', ')} (\`name\` required; \`phones\` and \`domains\` separated by \`;\`). A row naming a live company (ignoring case) updates it. At most ${MAX_IMPORT_ROWS} rows and 20 MB.`,
    // Plain JSON Schema, not zod: the route reads the body itself, within its size limit.
    request: {
      body: {
        required: true,
        content: {
          'text/csv': {
            schema: { type: 'string', description: 'CSV text with a header row (also accepted as application/csv)' },
          },
          'multipart/form-data': {
            schema: {
              type: 'object',
              properties: { file: { type: 'string', format: 'binary', description: 'the CSV file' } },
              required: ['file'],
            },
          },
        },
      },
    },
    example: {
      body: 'name,website,domains\nGlobex Corporation,https://globex.example,globex.example\nInitech,https://initech.example,initech.example;initrode.example\n',
    },
    responses: {
      201: {
        description: 'the import job was started; no body',
        headers: z.object({
          Location: z
            .string()
            .meta({ description: 'the job: /v2/backgroundjobs/{jobId}.json', example: '/v2/backgroundjobs/12.json' }),
        }),
      },
      413: errorResponse('the CSV is larger than 20 MB or has more than 200,000 rows'),
      415: errorResponse('not sent as text/csv or as a multipart form'),
    },
  },
  async (c) => {
    const records = parseCsv(await readCsvText(c));
    const columns = headerColumns(records[0]);
    const rows = records.slice(1);
    if (rows.length === 0) throw ApiError.invalid('body', 'the CSV has a header row but no rows to import');
    if (rows.length > MAX_IMPORT_ROWS)
      throw tooLarge(`the CSV has ${rows.length} rows; the limit is ${MAX_IMPORT_ROWS} rows`);
    const lines = rows.map((record) => ({ line: record.line, data: stagedRow(columns, record) }));
    const jobId = await companyImport.start(c.var.db, c.env, c.var.principal, lines, { columns });
    return c.body(null, 201, { Location: `/v2/backgroundjobs/${jobId}.json` });
  },
);
