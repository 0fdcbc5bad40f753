import { and, eq, sql, type SQL } from 'drizzle-orm';
import { systemActor, type Actor } from '../../auth/principal';
import type { Database } from '../../db/client';
import { refuseWhen } from '../../db/refusal';
import { tickets } from '../../db/schema';
import { intList } from '../../db/sql-values';
import { planOf, sendWithReadBack, tenantScope, updateStatement } from '../../engine';
import { recordEventsStatement } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { workingHoursFrom, workingHoursStatement } from '../businesshours/working-hours-of';
import { requireFieldsToResolveStatement } from '../customfields/ticket-values';
import { threadEntryStatements } from '../tickets/thread-entry';
import { visibleTickets } from '../tickets/ticket-visibility';
import { ticketsResource } from '../tickets/tickets.resource';
import {
  factsOf,
  factsPrint,
  ticketFactsStatement,
  triggerMatches,
  type FactsPrint,
  type TicketFacts,
} from './trigger-conditions';
import {
  isTimeBased,
  problemsAsChecks,
  printedTrigger,
  storedTriggerPrintedStatement,
  unchangedCheck,
  type StoredTrigger,
} from './trigger-rules';
import { actionIds, fill, ticketChanges, triggeredEvent, unseatedDetail } from './trigger-actions';
import { ACTION } from './trigger-codes';

const RACE = 'a simultaneous change got in the way; try again';

/** The next event id: what a run writes is from here on (`trigger_chain_links`). */
const lastEventId = sql`coalesce(pg_sequence_last_value('events_id_seq'), 0)`;

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
  const { changes, watched } = ticketChanges(trigger);
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
    statements.push(...runStatements(db, installationId, trigger, facts, { changes, watched }));
  }
  if (readBack !== undefined)
    return { body: await sendWithReadBack(db, ticketsResource, who, statements, sql`${readBack}::int`, []) };
  await db.batch(statements);
  return { body: undefined };
}

/** `runTrigger` on one ticket as statements: its actions in order, the run's place in a chain (depth 1), the `triggered` event. */
function runStatements(
  db: Database,
  installationId: number,
  trigger: StoredTrigger,
  facts: TicketFacts,
  { changes, watched }: ReturnType<typeof ticketChanges>,
): SQL[] {
  const who = systemActor(installationId, 'triggers');
  const writer = db.http;
  const parent = { type: 'tickets', id: sql`${facts.id}::int` };
  const failed = (detail: string) => `trigger ${trigger.id} could not act on ticket ${facts.id}: ${detail}`;
  const chain = `desk.trigger_chain_${facts.id}`;
  const statements: (SQL | undefined)[] = [sql`SELECT set_config(${chain}::text, (${lastEventId})::text, true)`];
  if (typeof changes.agentId === 'number') {
    const collaborator = sql`EXISTS (SELECT 1 FROM users WHERE id = ${changes.agentId} AND installation_id = ${installationId} AND role = 'collaborator')`;
    statements.push(refuseWhen(collaborator, 409, 'trigger', failed(unseatedDetail(changes.agentId))));
  }
  if (Object.keys(changes).length > 0)
    statements.push(
      updateStatement(
        writer,
        who,
        { table: tickets, type: 'tickets', where: eq(tickets.id, facts.id) },
        changes,
        watched,
      ),
    );
  if (changes.statusId !== undefined && changes.statusId !== facts.statusId) {
    statements.push(
      requireFieldsToResolveStatement(who, sql`t.id = ${facts.id}`, 'trigger', { status: 409, prefix: failed('') }),
    );
  }
  // the tags linked as each action comes: an earlier one may have added or taken off some
  const linked = new Set(facts.tags);
  const source = 'trigger.triggeractions';
  let entry = 0;
  for (const action of trigger.actions) {
    switch (action.type) {
      case ACTION.addTags: {
        const ids = actionIds(action);
        statements.push(
          ...planOf(ticketsResource.relations.tags!)!(
            writer,
            who,
            parent,
            ids.map((id) => ({ id })),
            source,
            false,
          )!,
        );
        for (const id of ids) linked.add(id);
        break;
      }
      case ACTION.removeTags: {
        const removing = [...new Set(actionIds(action))].filter((id) => linked.has(id));
        if (removing.length)
          statements.push(
            ...planOf(ticketsResource.relations.tags!)!(
              writer,
              who,
              parent,
              removing.map((id) => ({ id, delete: true })),
              source,
              false,
            )!,
          );
        for (const id of removing) linked.delete(id);
        break;
      }
      case ACTION.addFollower:
        statements.push(
          ...planOf(ticketsResource.relations.followers!)!(
            writer,
            who,
            parent,
            [{ id: Number(action.value) }],
            source,
            false,
          )!,
        );
        break;
      case ACTION.addNote:
      case ACTION.sendReply:
        statements.push(
          ...threadEntryStatements(
            who,
            {
              ticketId: facts.id,
              body: action.type === ACTION.sendReply ? fill(action.message, facts) : action.message,
              editMethod: 'markdown',
              threadType: action.type === ACTION.addNote ? 'note' : 'message',
              customerId: null,
            },
            `trigger_entry_${facts.id}_${++entry}`,
          ),
        );
        break;
      default:
        break;
    }
  }
  statements.push(
    sql`INSERT INTO trigger_chain_links (installation_id, ticket_id, events_after, events_to, depth)
      VALUES (${installationId}, ${facts.id}, current_setting(${chain}::text)::bigint, ${lastEventId}, 1)`,
    recordEventsStatement(who, [triggeredEvent(trigger, facts.id, 1)]),
  );
  return statements.filter((statement): statement is SQL => statement !== undefined);
}
