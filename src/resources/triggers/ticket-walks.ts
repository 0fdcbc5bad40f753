import { sql } from 'drizzle-orm';
import type { Env } from '../../app-env';
import { openDatabase, type Database } from '../../db/client';
import { announceEvents } from '../../events/announce';
import { configureEvents } from '../../events/record-events';
import { errorField, log } from '../../lib/log';
import { intList } from '../../db/sql-values';
import { runTriggersOn } from './run-triggers';
import { TIME_FIELDS } from './trigger-codes';
import { activeTriggers, isTimeBased, type StoredTrigger } from './trigger-rules';

/** Tickets the cron looks at for one trigger in one run; the next run goes on from there. */
const WALK_BATCH = 500;

/**
 * A trigger's walk over the tickets by the cron: a time-based one for ever (`time_cursor`, from
 * the first again once at the end, as time passes for every ticket), one applied to the tickets
 * there were when it was written once (`existing_cursor`, null once at the end).
 */
const CURSORS = { time: sql.raw('time_cursor'), existing: sql.raw('existing_cursor') } as const;

async function walk(
  db: Database,
  installationId: number,
  trigger: StoredTrigger,
  cursor: keyof typeof CURSORS,
  now: Date,
): Promise<void> {
  const column = CURSORS[cursor];
  const { rows: candidates } = await db.http.execute(sql`
    SELECT t.id FROM tickets t WHERE t.installation_id = ${installationId} AND t.state = 'active'
       AND t.id > (SELECT coalesce(${column}, 0) FROM triggers WHERE id = ${trigger.id})
       AND NOT EXISTS (SELECT 1 FROM trigger_runs r WHERE r.trigger_id = ${trigger.id} AND r.ticket_id = t.id)
     ORDER BY t.id LIMIT ${WALK_BATCH}`);
  for (const { id } of candidates) {
    try {
      await db.transaction((tx) => runTriggersOn(tx, installationId, Number(id), 1, [trigger], now));
    } catch (error) {
      log('error', 'triggers: a trigger failed on a ticket the cron walked to', {
        triggerId: trigger.id,
        ticketId: Number(id),
        cursor,
        error: errorField(error),
      });
    }
  }
  const last = candidates.length === WALK_BATCH ? Number(candidates.at(-1)!.id) : cursor === 'time' ? 0 : null;
  await db.http.execute(sql`UPDATE triggers SET ${column} = ${last}::int WHERE id = ${trigger.id}`);
}

/**
 * Every five minutes, each installation's active automatic triggers that walk the tickets:
 * - with a time condition ("waiting for more than 48 hours"), evaluated as of the moment the cron
 *   runs over the next 500 live tickets it has not acted on, so every ticket is looked at in turn;
 * - written with `applyToExistingTickets`, applied to the next 500 live tickets, until the last
 *   (a time-based one's own walk covers them already).
 * Those a trigger matches it acts on (once a ticket, as always), each in a transaction of its own;
 * a ticket that fails is logged and passed over, not tried by the others.
 */
export async function runTicketWalks(env: Env): Promise<void> {
  configureEvents(env);
  const db = openDatabase(env);
  try {
    const now = new Date();
    const { rows: walking } = await db.http.execute(sql`
      SELECT t.installation_id, t.id, t.existing_cursor IS NOT NULL AS existing FROM triggers t
       WHERE t.state = 'active' AND t.type = 'Automatic' AND NOT t.is_system
         AND (t.existing_cursor IS NOT NULL OR EXISTS (SELECT 1 FROM trigger_conditions c WHERE c.trigger_id = t.id AND c.state = 'active' AND c.field IN ${intList(TIME_FIELDS)}))`);
    for (const installationId of new Set(walking.map((row) => Number(row.installation_id)))) {
      const applying = new Set(
        walking
          .filter((row) => Number(row.installation_id) === installationId && row.existing === true)
          .map((row) => Number(row.id)),
      );
      for (const trigger of await activeTriggers(db.http, installationId, 'Automatic')) {
        if (isTimeBased(trigger)) {
          await walk(db, installationId, trigger, 'time', now);
          if (applying.has(trigger.id))
            await db.http.execute(sql`UPDATE triggers SET existing_cursor = NULL WHERE id = ${trigger.id}`);
        } else if (applying.has(trigger.id)) {
          await walk(db, installationId, trigger, 'existing', now);
        }
      }
    }
    await announceEvents(env, db);
  } finally {
    await db.close();
  }
}
