import { eq, sql } from 'drizzle-orm';
import { systemActor } from '../../auth/principal';
import type { Transaction } from '../../db/client';
import { triggers } from '../../db/schema';
import { updateRecords } from '../../engine';
import { recordEvents } from '../../events/record-events';
import type { WorkingHours } from '../../lib/working-time';
import { workingHoursOf } from '../businesshours/working-hours-of';
import { runTrigger } from './trigger-actions';
import { MAX_CHAIN_DEPTH } from './trigger-codes';
import { ticketFacts, triggerMatches } from './trigger-conditions';
import { problemsOf, type StoredTrigger } from './trigger-rules';

/** A trigger naming a record since deleted becomes `incomplete` (an `updated` event of it) and does not run. Answers whether it may run. */
export async function stillComplete(tx: Transaction, installationId: number, trigger: StoredTrigger): Promise<boolean> {
  const missing = (await problemsOf(tx, installationId, trigger)).filter((problem) => problem.missing);
  if (missing.length === 0) return true;
  await updateRecords(
    tx,
    systemActor(installationId, 'triggers'),
    { table: triggers, type: 'triggers', where: eq(triggers.id, trigger.id) },
    { state: 'incomplete' },
    { state: triggers.state },
  );
  return false;
}

/** Marks the trigger as having acted on the ticket; false when it had already (an automatic trigger acts once). */
async function claimRun(
  tx: Transaction,
  installationId: number,
  triggerId: number,
  ticketId: number,
  depth: number,
): Promise<boolean> {
  const { rows } =
    await tx.execute(sql`INSERT INTO trigger_runs (installation_id, trigger_id, ticket_id, depth) VALUES (${installationId}, ${triggerId}, ${ticketId}, ${depth})
    ON CONFLICT DO NOTHING RETURNING trigger_id`);
  return rows.length > 0;
}

async function hoursOf(
  tx: Transaction,
  installationId: number,
  trigger: StoredTrigger,
  cache: Map<number, WorkingHours | undefined>,
): Promise<WorkingHours | undefined> {
  if (trigger.businesshoursId === null) return undefined;
  if (!cache.has(trigger.businesshoursId))
    cache.set(trigger.businesshoursId, await workingHoursOf(tx, installationId, trigger.businesshoursId));
  return cache.get(trigger.businesshoursId);
}

/**
 * The automatic triggers that wait on events, in order, for a ticket at one depth of a chain: each
 * that has not acted on the ticket and matches it now acts (the next sees what it did). Past the
 * chain's depth nothing acts, and one `triggered` event (`stopped: true`) says so.
 */
export async function runTriggersOn(
  tx: Transaction,
  installationId: number,
  ticketId: number,
  depth: number,
  candidates: StoredTrigger[],
  now: Date,
): Promise<number[]> {
  const acted: number[] = [];
  const cache = new Map<number, WorkingHours | undefined>();
  const { rows: ran } = await tx.execute(sql`SELECT trigger_id FROM trigger_runs WHERE ticket_id = ${ticketId}`);
  const done = new Set(ran.map((row) => Number(row.trigger_id)));
  let facts = await ticketFacts(tx, installationId, ticketId, true);
  for (const trigger of candidates) {
    if (!facts) break;
    if (done.has(trigger.id) || !triggerMatches(trigger, facts, now, await hoursOf(tx, installationId, trigger, cache)))
      continue;
    if (depth > MAX_CHAIN_DEPTH) {
      await recordEvents(tx, systemActor(installationId, 'triggers'), [
        {
          recordType: 'tickets',
          recordId: ticketId,
          kind: 'triggered',
          data: { trigger: { id: trigger.id, type: 'triggers', name: trigger.name }, stopped: true, depth },
        },
      ]);
      break;
    }
    // an incomplete trigger has not acted: once fixed, it may still
    if (!(await stillComplete(tx, installationId, trigger))) continue;
    if (!(await claimRun(tx, installationId, trigger.id, ticketId, depth))) continue;
    if (!(await runTrigger(tx, trigger, facts, depth, installationId)).failed) acted.push(trigger.id);
    facts = await ticketFacts(tx, installationId, ticketId);
  }
  return acted;
}
