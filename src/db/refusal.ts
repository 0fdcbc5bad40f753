import { sql, type SQL } from 'drizzle-orm';
import { ApiError, type ErrorCode } from '../http/errors';

/**
 * Checks that run inside a write sent as one batch (`Database.batch`): a statement that calls
 * `desk_refuse` (migration 0038) when its condition holds, which stops the batch, rolls it back,
 * and comes back to the Worker as the 4xx it names, with the property and the detail a client
 * reads. So a write can check what needs the database (the inbox exists, the ids are the
 * caller's) in the same round trip as the write itself.
 */
export type RefusalStatus = 400 | 403 | 404 | 409;

const CODES: Record<RefusalStatus, ErrorCode> = { 400: 'invalid', 403: 'forbidden', 404: 'notFound', 409: 'conflict' };

/** A statement that stops the batch with the error when `condition` holds. */
export function refuseWhen(condition: SQL, status: RefusalStatus, source: string, detail: string): SQL {
  return sql`SELECT desk_refuse(${status}::int, ${source}::text, ${detail}::text) WHERE ${condition}`;
}

/** One item a check looks at: the id it names, and the error it stands for when it is bad. */
export interface CheckedId {
  id: number;
  source: string;
  detail: string;
}

/**
 * A statement that stops the batch at the first of `items` (in their order) for which `bad`
 * holds, `bad` given the item's id as SQL (`x.id`); undefined when there is nothing to check.
 * One statement however many items.
 */
export function refuseFirst(
  items: readonly CheckedId[],
  bad: (id: SQL) => SQL,
  status: RefusalStatus = 400,
): SQL | undefined {
  if (items.length === 0) return undefined;
  const list = JSON.stringify(items.map((item, n) => ({ ...item, n })));
  return sql`SELECT desk_refuse(${status}::int, x.source, x.detail) FROM (
    SELECT x.source, x.detail FROM jsonb_to_recordset(${list}::jsonb) AS x(id int, source text, detail text, n int)
     WHERE ${bad(sql`x.id`)} ORDER BY x.n LIMIT 1) x`;
}

/**
 * A statement that ends the batch and rolls it back on purpose, handing `value` (SQL, as text) to
 * the Worker: a dry run learns what its write would do in the write's own round trip. The batch
 * throws it as `RolledBack`.
 */
export function rollBackWith(value: SQL): SQL {
  return sql`SELECT desk_refuse(200, 'rolled back', (${value})::text)`;
}

/** A batch that ended with `rollBackWith`: nothing it wrote stays; `value` is what it handed over. */
export class RolledBack extends Error {
  constructor(readonly value: string) {
    super('the batch was rolled back on purpose');
  }
}

type RaisedError = { code?: unknown; message?: unknown; detail?: unknown; cause?: unknown };

/** The `desk_refuse` error in `error`, or in what it wraps (drizzle wraps a transaction's statement errors). */
function raisedRefusal(error: unknown): { candidate: RaisedError; match: RegExpExecArray } | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const candidate = current as RaisedError;
    const match = typeof candidate.code === 'string' ? /^HD(\d{3})$/.exec(candidate.code) : null;
    if (match) return { candidate, match };
    current = candidate.cause;
  }
  return undefined;
}

/** The error a `desk_refuse` raised, as the client gets it (or `RolledBack`, as `rollBackWith` asked); undefined for any other error. */
export function refusalOf(error: unknown): ApiError | RolledBack | undefined {
  const raised = raisedRefusal(error);
  if (!raised) return undefined;
  const { candidate, match } = raised;
  if (match[1] === '200') return new RolledBack(String(candidate.message));
  const status = Number(match[1]) as RefusalStatus;
  const code = CODES[status] ?? 'invalid';
  const source = typeof candidate.detail === 'string' && candidate.detail !== '' ? candidate.detail : undefined;
  return new ApiError(status in CODES ? status : 400, [
    { code, ...(source ? { source } : {}), detail: String(candidate.message) },
  ]);
}

/**
 * A value one statement of a batch hands to those after it (a new record's id): set for the rest
 * of the transaction by `remember`, read by `recalled`.
 */
export function remember(name: string, value: SQL): SQL {
  return sql`set_config(${`desk.${name}`}::text, (${value})::text, true)`;
}

export function recalled(name: string): SQL {
  return sql`current_setting(${`desk.${name}`}::text)::int`;
}

/** A value a statement may not have remembered (its row was not written): null then. */
export function recalledIfAny(name: string): SQL {
  return sql`nullif(current_setting(${`desk.${name}`}::text, true), '')::int`;
}

/** Ids remembered together, as a JSON array (`remember(name, jsonb_agg(id))`): a set to select from. */
export function recalledIds(name: string): SQL {
  return sql`(SELECT jsonb_array_elements_text(current_setting(${`desk.${name}`}::text)::jsonb)::int)`;
}
