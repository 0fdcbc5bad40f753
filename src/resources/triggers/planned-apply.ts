import { and, sql, type SQL } from 'drizzle-orm';
import type { Actor } from '../../auth/principal';
import type { Database } from '../../db/client';
import { refuseWhen } from '../../db/refusal';
import { tickets } from '../../db/schema';
import { intList } from '../../db/sql-values';
import { sendWithReadBack, tenantScope } from '../../engine';
import { ApiError } from '../../http/errors';
import { workingHoursFrom, workingHoursStatement } from '../businesshours/working-hours-of';
import { visibleTickets } from '../tickets/ticket-visibility';
import { ticketsResource } from '../tickets/tickets.resource';
import { factsOf, factsPrint, ticketFactsStatement, triggerMatches, type FactsPrint } from './trigger-conditions';
import {
  isTimeBased,
  problemsAsChecks,
  printedTrigger,
  storedTriggerPrintedStatement,
  unchangedCheck,
} from './trigger-rules';
import { triggerRunStatements } from './trigger-actions';

const RACE = 'a simultaneous change got in the way; try again';

/**
 * A manual trigger applied by hand in two exchanges with the database: the trigger, its business
 * hours and the tickets' facts read first (one batch of reads), the conditions decided in the
 * Worker, then one batch writing what the actions do, as a trigger's run does (`runTrigger`): the
 * same checks in the same order (a trigger that is not an active manual one: a 400; a ticket the
 * caller may not change: a 404; the trigger naming what is gone, conditions that do not hold, a
 * collaborator to assign, a required custom field empty for a solved or closed status: a 409),
 * the same events, nothing written on a refusal. A webhook action is sent by the webhooks'
 * fan-out of the run's `triggered` event. The batch refuses with the lost race's 409 if the
 * trigger or a ticket changed since it was read (its times too, for a trigger with a time
 * condition).
 */
export async function plannedApply(
  db: Database,
  who: Actor,
  triggerId: number,
  ticketIds: number[],
  readBack?: number,
) {
  const installationId = who.installationId;
  const writable = and(
    tenantScope(tickets, installationId, false, 'write'),
    visibleTickets(who),
    sql`${tickets.id} IN ${intList(ticketIds)}`,
  );
  const [triggerRows, factRows, hoursRows] = await db.batch([
    storedTriggerPrintedStatement(installationId, triggerId),
    ticketFactsStatement(installationId, sql`t.id IN (SELECT ${tickets.id} FROM ${tickets} WHERE ${writable})`, true),
    workingHoursStatement(
      installationId,
      sql`b.id = (SELECT tr.businesshours_id FROM triggers tr WHERE tr.id = ${triggerId} AND tr.installation_id = ${installationId})`,
    ),
  ]);
  const stored = printedTrigger(triggerRows![0]);
  const trigger = stored?.trigger;
  if (!stored || !trigger || trigger.type !== 'Manual' || trigger.state !== 'active')
    throw ApiError.invalid('trigger', `no active manual trigger ${triggerId} here`);
  const printed: FactsPrint = isTimeBased(trigger) ? 'timed' : 'timeless';
  const read = new Map(factRows!.map((row) => [Number(row.id), { facts: factsOf(row), print: String(row[printed]) }]));
  const absent = ticketIds.find((id) => !read.has(id));
  if (absent !== undefined) throw ApiError.notFound('tickets', `ticket ${absent} not found`);
  const hours = trigger.businesshoursId === null ? undefined : workingHoursFrom(hoursRows![0]);

  const missing = (await problemsAsChecks(installationId, trigger)).filter((problem) => problem.missing);
  const statements: SQL[] = [
    // the tickets locked in id order, as every write locks them, before the trigger (as the drain's runs lock them)
    sql`SELECT ${tickets.id} FROM ${tickets} WHERE ${tickets.id} IN ${intList(ticketIds)} ORDER BY ${tickets.id} FOR UPDATE`,
    ...unchangedCheck(installationId, triggerId, stored.print),
    ...ticketIds.map((id) =>
      refuseWhen(
        sql`${factsPrint(installationId, id, printed)} IS DISTINCT FROM ${read.get(id)!.print}::text`,
        409,
        'trigger',
        RACE,
      ),
    ),
    ...missing.map((problem) =>
      refuseWhen(
        problem.when ?? sql`true`,
        409,
        'trigger',
        `trigger ${triggerId} cannot run until it is fixed: ${problem.detail}`,
      ),
    ),
  ];
  const now = new Date();
  for (const id of ticketIds) {
    const { facts } = read.get(id)!;
    if (!triggerMatches(trigger, facts, now, hours)) {
      statements.push(
        refuseWhen(sql`true`, 409, 'trigger', `trigger ${triggerId}'s conditions do not hold for ticket ${id}`),
      );
      break;
    }
    statements.push(...triggerRunStatements(db.http, installationId, trigger, facts, 1, 'byHand'));
  }
  if (readBack !== undefined)
    return { body: await sendWithReadBack(db, ticketsResource, who, statements, sql`${readBack}::int`, []) };
  await db.batch(statements);
  return { body: undefined };
}
