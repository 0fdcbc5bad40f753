import { eq, sql, type SQL } from 'drizzle-orm';
import { systemActor } from '../../auth/principal';
import type { Transaction } from '../../db/client';
import { refusalOf, refuseWhen } from '../../db/refusal';
import { tickets } from '../../db/schema';
import { planOf, updateStatement, type WritableField, type Writer } from '../../engine';
import { recordEvents, recordEventsStatement } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { requireFieldsToResolveStatement } from '../customfields/ticket-values';
import { threadEntryStatements } from '../tickets/thread-entry';
import { fillTemplate } from '../tickets/ticket-template';
import { ticketsResource } from '../tickets/tickets.resource';
import { ACTION, ACTIONS } from './trigger-codes';
import type { TicketFacts } from './trigger-conditions';
import type { StoredTrigger } from './trigger-rules';

/** The ticket properties the actions set, by action type, with how their change reads in events. */
const SETS: Record<number, { column: string; property: string }> = {
  [ACTION.setStatus]: { column: 'statusId', property: 'status' },
  [ACTION.setPriority]: { column: 'priorityId', property: 'priority' },
  [ACTION.setType]: { column: 'typeId', property: 'type' },
  [ACTION.assignAgent]: { column: 'agentId', property: 'agent' },
  [ACTION.moveToInbox]: { column: 'inboxId', property: 'inbox' },
};

/** Text a customer wrote, taken literally in markdown: no links, images or formatting of theirs in the helpdesk's reply. */
const literalMarkdown = (text: string) => text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (c) => `\\${c}`);

const fill = (template: string, facts: TicketFacts) => fillTemplate(template, facts, literalMarkdown);

/**
 * Runs one trigger's actions on a ticket, as the system's `triggers` part: the statements of
 * `triggerRunStatements`, one after another, in a savepoint, so one refused undoes them all and a
 * `triggered` event with `failed` says why (a `ticket.trigger.failed` line).
 */
export async function runTrigger(
  tx: Transaction,
  trigger: StoredTrigger,
  facts: TicketFacts,
  depth: number,
  installationId: number,
): Promise<{ failed?: string }> {
  try {
    await tx.transaction(async (savepoint) => {
      for (const statement of triggerRunStatements(savepoint, installationId, trigger, facts, depth, 'drain'))
        await savepoint.execute(statement);
    });
  } catch (error) {
    const refusal = error instanceof ApiError ? error : refusalOf(error);
    if (!(refusal instanceof ApiError)) throw error;
    const failed = refusal.errors.map((e) => e.detail).join('; ');
    await recordEvents(tx, systemActor(installationId, 'triggers'), [
      {
        recordType: 'tickets',
        recordId: facts.id,
        kind: 'triggered',
        data: { trigger: { id: trigger.id, type: 'triggers', name: trigger.name }, failed, depth },
      },
    ]);
    return { failed };
  }
  return {};
}

/** What the trigger's actions set on a ticket (its columns), with how their change reads in events. */
function ticketChanges(trigger: StoredTrigger) {
  const changes: Record<string, unknown> = {};
  const watched: Record<string, NonNullable<WritableField['output']>> = {};
  for (const action of trigger.actions) {
    const set = SETS[action.type];
    if (set) {
      changes[set.column] = action.value === '' ? null : Number(action.value);
      watched[set.property] = ticketsResource.fields[set.property]!.output!;
    }
  }
  return { changes, watched };
}

/** The ids an action's value names. */
const actionIds = (action: StoredTrigger['actions'][number]) =>
  action.value
    .split(',')
    .map((part) => Number(part.trim()))
    .filter(Boolean);

/** Why a ticket is not assigned to the user (a collaborator). */
const unseatedDetail = (userId: number) =>
  `user ${userId} is a collaborator: a ticket is assigned to an owner, admin or agent`;

/** The `triggered` event of a run that did what its actions say. */
const triggeredEvent = (trigger: StoredTrigger, ticketId: number, depth: number) => ({
  recordType: 'tickets',
  recordId: ticketId,
  kind: 'triggered' as const,
  data: {
    trigger: { id: trigger.id, type: 'triggers', name: trigger.name },
    actions: trigger.actions.map((a) => ({
      type: a.type,
      name: ACTIONS[a.type as keyof typeof ACTIONS]?.name,
      value: a.value,
    })),
    depth,
  },
});

/** The next event id: what a run writes is from here on (`trigger_chain_links`). */
const lastEventId = sql`coalesce(pg_sequence_last_value('events_id_seq'), 0)`;

/** Where a run's refusals point in a trigger, as its writes name it. */
const ACTIONS_SOURCE = 'trigger.triggeractions';

/**
 * How a run's refusals read. Applied by hand (`planned-apply.ts`) the request answers them: a 409
 * naming the trigger and the ticket. Run by the drain (`runTrigger`) they are noted on the run's
 * `triggered` event, which names both already: the 400 of a teammate's write, as its detail.
 */
const REFUSALS = {
  byHand: (trigger: StoredTrigger, ticketId: number) => ({
    status: 409 as const,
    source: 'trigger',
    prefix: `trigger ${trigger.id} could not act on ticket ${ticketId}: `,
  }),
  drain: () => ({ status: 400 as const, source: ACTIONS_SOURCE, prefix: '' }),
};

/**
 * One trigger's run on a ticket as statements, in order: each action through the write it stands
 * for (an update of the ticket, a tag linked, a note added...), with its events and history lines,
 * held to the rules a teammate's write is (no collaborator assigned, required custom fields before
 * solved or closed: refusals, `src/db/refusal.ts`); the run's place in a chain (`depth`); then one
 * `triggered` event naming the trigger and what it did (a `ticket.trigger` history line). The
 * drain runs them one by one in its transaction, a trigger applied by hand sends them in its batch.
 * A webhook action is sent by the webhooks' fan-out of the `triggered` event, which names it.
 */
export function triggerRunStatements(
  writer: Writer,
  installationId: number,
  trigger: StoredTrigger,
  facts: TicketFacts,
  depth: number,
  by: keyof typeof REFUSALS,
): SQL[] {
  const who = systemActor(installationId, 'triggers');
  const refusal = REFUSALS[by](trigger, facts.id);
  const { changes, watched } = ticketChanges(trigger);
  const parent = { type: 'tickets', id: sql`${facts.id}::int` };
  const chain = `desk.trigger_chain_${facts.id}`;
  const statements: (SQL | undefined)[] = [sql`SELECT set_config(${chain}::text, (${lastEventId})::text, true)`];
  if (typeof changes.agentId === 'number') {
    const collaborator = sql`EXISTS (SELECT 1 FROM users WHERE id = ${changes.agentId} AND installation_id = ${installationId} AND role = 'collaborator')`;
    statements.push(
      refuseWhen(collaborator, refusal.status, refusal.source, refusal.prefix + unseatedDetail(changes.agentId)),
    );
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
  if (changes.statusId !== undefined && changes.statusId !== facts.statusId)
    statements.push(requireFieldsToResolveStatement(who, sql`t.id = ${facts.id}`, refusal.source, refusal));
  // the tags linked as each action comes: an earlier one may have added or taken off some
  const linked = new Set(facts.tags);
  const relation = (name: 'tags' | 'followers', entries: Array<{ id: number; delete?: boolean }>) =>
    planOf(ticketsResource.relations[name]!)!(writer, who, parent, entries, ACTIONS_SOURCE, false)!;
  let entry = 0;
  for (const action of trigger.actions) {
    switch (action.type) {
      case ACTION.addTags: {
        const ids = actionIds(action);
        statements.push(
          ...relation(
            'tags',
            ids.map((id) => ({ id })),
          ),
        );
        for (const id of ids) linked.add(id);
        break;
      }
      case ACTION.removeTags: {
        const removing = [...new Set(actionIds(action))].filter((id) => linked.has(id));
        if (removing.length)
          statements.push(
            ...relation(
              'tags',
              removing.map((id) => ({ id, delete: true })),
            ),
          );
        for (const id of removing) linked.delete(id);
        break;
      }
      case ACTION.addFollower:
        statements.push(...relation('followers', [{ id: Number(action.value) }]));
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
      // ACTION.callWebhook: sent by the webhooks' fan-out of the run's `triggered` event, which names it
      default:
        break;
    }
  }
  statements.push(
    sql`INSERT INTO trigger_chain_links (installation_id, ticket_id, events_after, events_to, depth)
      VALUES (${installationId}, ${facts.id}, current_setting(${chain}::text)::bigint, ${lastEventId}, ${depth})`,
    recordEventsStatement(who, [triggeredEvent(trigger, facts.id, depth)]),
  );
  return statements.filter((statement): statement is SQL => statement !== undefined);
}
