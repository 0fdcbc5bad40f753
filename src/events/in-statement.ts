import { sql, type SQL } from 'drizzle-orm';
import type { Env } from '../app-env';
import type { SettleHook } from '../db/client';
import { errorField, log } from '../lib/log';
import { eventsOn } from './record-events';
import type { EventInterest, Subscriber } from './subscriber';

/** Whether the subscriber wants the event in the row `e`: `wants` (subscriptions.ts), in SQL. */
function interestOf(on: readonly EventInterest[]): SQL {
  const one = (interest: EventInterest) => {
    const kinds = interest.kinds
      ? sql` AND e.kind IN (${sql.join(
          interest.kinds.map((kind) => sql`${kind}`),
          sql`, `,
        )})`
      : sql``;
    const changed = interest.changed
      ? sql` AND (e.kind <> 'updated' OR e.data ?| ARRAY[${sql.join(
          interest.changed.map((name) => sql`${name}::text`),
          sql`, `,
        )}])`
      : sql``;
    return sql`(e.record_type = ${interest.recordType}${kinds}${changed})`;
  };
  return sql.join(on.map(one), sql` OR `);
}

const rowsColumn = (i: number) => `in_statement_${i}`;
const wantsColumn = (i: number) => `in_statement_${i}_wants`;

/** How long the isolate trusts a subscriber's no for an installation (`inStatement.wants`). */
const TRUSTED_MS = 30_000;
const MAX_ENTRIES = 10_000;

/** Until when each subscriber (by its place) is known not to want an installation's events: `${i} ${installationId}`. */
const unwanted = new Map<string, number>();

/**
 * The subscribers handled in SQL by the writes themselves (`Subscriber.inStatement`): for each,
 * two parts of the statement that closes every transaction (src/db/client.ts), inside the same
 * exchange as the write: its statement over the transaction's events it wants (not yet
 * dispatched, of installations it `wants`), and the record that it handled them, so its work
 * commits with the write or not at all and the drain skips them. Its statement's rows come back
 * in the closing row; `afterCommit` gets them once the write has committed (a failure there is
 * logged: the rows it wrote are found again, as the subscriber provides, by its cron). A write
 * that knows its installation also reads whether the subscriber `wants` it, and where it does not
 * the next writes of the installation (for 30 s, or until one reads a yes) carry only that
 * question: a statement with a subscriber's parts costs Postgres most of a millisecond to plan.
 */
export function inStatementHook(subscribers: readonly Subscriber[]): SettleHook | undefined {
  const chosen = subscribers.filter((subscriber) => subscriber.inStatement);
  if (chosen.length === 0) return undefined;
  return {
    settle(xact, installationId) {
      if (!eventsOn()) return { ctes: [], columns: [] };
      const parts = chosen.map((subscriber, i) => {
        const own = subscriber.inStatement!;
        const asked =
          installationId === undefined
            ? []
            : [sql`${own.wants(sql`${installationId}::int`)} AS ${sql.identifier(wantsColumn(i))}`];
        if (installationId !== undefined && (unwanted.get(`${i} ${installationId}`) ?? 0) > Date.now())
          return { ctes: [], columns: asked };
        const events = sql`e.xact = (${xact})::bigint AND e.dispatched_at IS NULL AND (${interestOf(subscriber.on)}) AND ${own.wants(sql`e.installation_id`)}`;
        const done = sql.identifier(rowsColumn(i));
        return {
          ctes: [
            sql`${done} AS (${own.statement(events)})`,
            sql`${sql.identifier(`${rowsColumn(i)}_handled`)} AS (
              INSERT INTO event_deliveries (event_id, subscriber, handled_at) SELECT e.id, ${subscriber.name}, now() FROM events e WHERE ${events}
              ON CONFLICT (event_id, subscriber) DO UPDATE SET handled_at = coalesce(event_deliveries.handled_at, now()))`,
          ],
          columns: [sql`(SELECT coalesce(json_agg(${done}), '[]'::json) FROM ${done}) AS ${done}`, ...asked],
        };
      });
      return { ctes: parts.flatMap((part) => part.ctes), columns: parts.flatMap((part) => part.columns) };
    },
    afterCommit(env, row, installationId) {
      return chosen.flatMap((subscriber, i) => {
        const wants = row[wantsColumn(i)];
        if (installationId !== undefined && typeof wants === 'boolean') {
          if (unwanted.size >= MAX_ENTRIES) unwanted.clear();
          if (wants) unwanted.delete(`${i} ${installationId}`);
          else unwanted.set(`${i} ${installationId}`, Date.now() + TRUSTED_MS);
        }
        const rows = row[rowsColumn(i)];
        if (!Array.isArray(rows) || rows.length === 0) return [];
        return [
          () =>
            subscriber
              .inStatement!.afterCommit(env as unknown as Env, rows as Record<string, unknown>[])
              .catch((error: unknown) =>
                log('warn', 'events: work after a write failed', {
                  subscriber: subscriber.name,
                  error: errorField(error),
                }),
              ),
        ];
      });
    },
  };
}
