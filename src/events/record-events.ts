import { sql, type SQL } from 'drizzle-orm';
import type { Actor, SystemPart } from '../auth/principal';
import type { Queryable } from '../db/client';
import type { EventKind } from './kinds';
import { initialDispatch } from './subscriptions';

export type { EventKind } from './kinds';

export interface EventInput {
  recordType: string;
  recordId: number;
  kind: EventKind;
  data?: Record<string, unknown>;
}

let writing = true;

/**
 * Events are written unless the Worker's `WRITE_EVENTS` variable is `off`: an operator's switch,
 * and the baseline of the events benchmark (bench/events.ts). Set from the environment on each
 * request and message, which is the same for the isolate's life.
 */
export function configureEvents(env: { WRITE_EVENTS?: string }): void {
  writing = env.WRITE_EVENTS !== 'off';
}

export function eventsOn(): boolean {
  return writing;
}

/**
 * Who writes events for rows of several installations in one statement (a room's delivery, the
 * cron): a part of the system, each event in its row's installation (`installationId`, SQL over
 * the row `r`).
 */
export interface RowsActor {
  kind: 'system';
  part: SystemPart;
  installationId: SQL;
  userId: null;
}

export function rowsActor(part: SystemPart, installationId: SQL = sql`r.installation_id`): RowsActor {
  return { kind: 'system', part, installationId, userId: null };
}

function actorColumns(who: Actor | RowsActor): SQL {
  return sql`${who.userId}::int, ${who.kind === 'system' ? who.part : null}::text`;
}

/**
 * One event per row of `rows` (an SQL relation, usually a CTE of changed rows, with an `id`
 * column), inserted by the same statement as the change: `data` may use the row's columns (`r`).
 */
export function insertEventsFrom(
  rows: SQL,
  who: Actor | RowsActor,
  recordType: string,
  kind: EventKind,
  data: SQL = sql`'{}'::jsonb`,
  where?: SQL,
  recordId: SQL = sql`r.id`,
): SQL {
  // Switched off: a statement that writes nothing, where the insert would sit.
  if (!writing) return sql`SELECT NULL WHERE false`;
  return sql`INSERT INTO events (installation_id, record_type, record_id, kind, data, actor_user_id, actor_system, dispatched_at)
    SELECT ${who.installationId}::int, ${recordType}::text, ${recordId}, ${kind}::text, ${data}, ${actorColumns(who)}, ${initialDispatch(recordType, kind, data)}
      FROM ${rows} r ${where ? sql`WHERE ${where}` : sql``}`;
}

/**
 * A data-modifying statement that returns `id` (its changed rows) with one event per changed
 * row written by the same statement: all or nothing. `data` and `recordId` may use the row (`r`);
 * the event is the row's own unless `recordId` names another (a link's parent). Answers the changed ids.
 */
export async function changeWithEvents(
  db: Queryable,
  statement: SQL,
  who: Actor,
  recordType: string,
  kind: EventKind,
  data?: SQL,
  recordId?: SQL,
): Promise<number[]> {
  const { rows } = await db.execute(withEvents(statement, who, recordType, kind, data, recordId));
  return rows.map((row) => Number(row.id));
}

/**
 * `changeWithEvents`'s statement, to run or to send in a batch: answers `select` over the changed
 * rows (`changed`), by default their ids.
 */
export function withEvents(
  statement: SQL,
  who: Actor,
  recordType: string,
  kind: EventKind,
  data?: SQL,
  recordId?: SQL,
  select: SQL = sql`id`,
): SQL {
  if (!writing) return sql`WITH changed AS (${statement}) SELECT ${select} FROM changed`;
  return sql`WITH changed AS (${statement}), logged AS (${insertEventsFrom(sql`changed`, who, recordType, kind, data, undefined, recordId)})
    SELECT ${select} FROM changed`;
}

/** Events of a special operation, in its transaction. */
export async function recordEvents(db: Queryable, who: Actor, list: EventInput[]): Promise<void> {
  const statement = recordEventsStatement(who, list);
  if (statement) await db.execute(statement);
}

/** `recordEvents`'s statement, to send in a batch; undefined when there is nothing to write. */
export function recordEventsStatement(who: Actor, list: EventInput[]): SQL | undefined {
  if (!writing || list.length === 0) return undefined;
  const values = list.map((event) => {
    const data = sql`${JSON.stringify(event.data ?? {})}::jsonb`;
    return sql`(${who.installationId}::int, ${event.recordType}::text, ${event.recordId}::int, ${event.kind}::text, ${data}, ${actorColumns(who)}, ${initialDispatch(event.recordType, event.kind, data)})`;
  });
  return sql`INSERT INTO events (installation_id, record_type, record_id, kind, data, actor_user_id, actor_system, dispatched_at)
    VALUES ${sql.join(values, sql`, `)}`;
}
