import { eq, sql } from 'drizzle-orm';
import type { Env } from '../../app-env';
import { systemActor, type Actor } from '../../auth/principal';
import type { Transaction } from '../../db/client';
import { tickets } from '../../db/schema';
import { updateRecords, type WritableField } from '../../engine';
import { recordEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { requireFieldsToResolve } from '../customfields/ticket-values';
import { addThreadEntry } from '../tickets/thread-entry';
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

export const fill = (template: string, facts: TicketFacts) => fillTemplate(template, facts, literalMarkdown);

/**
 * Runs one trigger's actions on a ticket, as the system's `triggers` part: each action through the
 * write it stands for (an update of the ticket, a tag linked, a note added...), with its events and
 * history lines, held to the rules a teammate's write is (no collaborator assigned, required custom
 * fields before solved or closed); then one `triggered` event naming the trigger and what it did
 * (a `ticket.trigger` history line). The actions run in a savepoint: one refused undoes them all,
 * and a `triggered` event with `failed` says why (a `ticket.trigger.failed` line).
 */
export async function runTrigger(
  tx: Transaction,
  env: Env,
  trigger: StoredTrigger,
  facts: TicketFacts,
  depth: number,
  installationId: number,
): Promise<{ failed?: string }> {
  const who: Actor = systemActor(installationId, 'triggers');
  const named = { id: trigger.id, type: 'triggers', name: trigger.name };
  try {
    await tx.transaction((savepoint) => applyActions(savepoint, env, who, trigger, facts, depth, installationId));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const failed = error.errors.map((e) => e.detail).join('; ');
    await recordEvents(tx, who, [
      { recordType: 'tickets', recordId: facts.id, kind: 'triggered', data: { trigger: named, failed, depth } },
    ]);
    return { failed };
  }
  await recordEvents(tx, who, [triggeredEvent(trigger, facts.id, depth)]);
  return {};
}

/** What the trigger's actions set on a ticket (its columns), with how their change reads in events. */
export function ticketChanges(trigger: StoredTrigger) {
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
export const actionIds = (action: StoredTrigger['actions'][number]) =>
  action.value
    .split(',')
    .map((part) => Number(part.trim()))
    .filter(Boolean);

/** Why a ticket is not assigned to the user (a collaborator). */
export const unseatedDetail = (userId: number) =>
  `user ${userId} is a collaborator: a ticket is assigned to an owner, admin or agent`;

/** The `triggered` event of a run that did what its actions say. */
export const triggeredEvent = (trigger: StoredTrigger, ticketId: number, depth: number) => ({
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

async function applyActions(
  tx: Transaction,
  env: Env,
  who: Actor,
  trigger: StoredTrigger,
  facts: TicketFacts,
  depth: number,
  installationId: number,
): Promise<void> {
  const context = { tx, who, env };
  const parent = { type: 'tickets', id: facts.id };
  const eventsAfter = await lastEventId(tx);
  const { changes, watched } = ticketChanges(trigger);
  if (typeof changes.agentId === 'number') await requireSeated(tx, installationId, changes.agentId);
  if (Object.keys(changes).length > 0)
    await updateRecords(
      tx,
      who,
      { table: tickets, type: 'tickets', where: eq(tickets.id, facts.id) },
      changes,
      watched,
    );
  if (changes.statusId !== undefined && changes.statusId !== facts.statusId)
    await requireFieldsToResolve(context, [facts.id], 'trigger.triggeractions');
  for (const action of trigger.actions) {
    const idsOf = () => actionIds(action);
    switch (action.type) {
      case ACTION.addTags:
        await ticketsResource.relations.tags!.write!(
          tx,
          who,
          parent,
          idsOf().map((id) => ({ id })),
          'trigger.triggeractions',
        );
        break;
      case ACTION.removeTags: {
        // the tags linked now: an earlier action may have taken some off already
        const { rows } = await tx.execute(sql`SELECT tag_id FROM ticket_tags WHERE ticket_id = ${facts.id}`);
        const linked = new Set(rows.map((row) => Number(row.tag_id)));
        const removing = [...new Set(idsOf())].filter((id) => linked.has(id));
        if (removing.length)
          await ticketsResource.relations.tags!.write!(
            tx,
            who,
            parent,
            removing.map((id) => ({ id, delete: true })),
            'trigger.triggeractions',
          );
        break;
      }
      case ACTION.addFollower:
        await ticketsResource.relations.followers!.write!(
          tx,
          who,
          parent,
          [{ id: Number(action.value) }],
          'trigger.triggeractions',
        );
        break;
      case ACTION.addNote:
      case ACTION.sendReply:
        await addThreadEntry(context, {
          ticketId: facts.id,
          body: action.type === ACTION.sendReply ? fill(action.message, facts) : action.message,
          editMethod: 'markdown',
          threadType: action.type === ACTION.addNote ? 'note' : 'message',
          customerId: null,
        });
        break;
      // ACTION.callWebhook: sent by the webhooks' fan-out of the run's `triggered` event, which names it
      default:
        break;
    }
  }
  await tx.execute(sql`INSERT INTO trigger_chain_links (installation_id, ticket_id, events_after, events_to, depth)
    VALUES (${installationId}, ${facts.id}, ${eventsAfter}, ${await lastEventId(tx)}, ${depth})`);
}

/** A ticket is assigned to a teammate with a seat, whoever assigns it. */
async function requireSeated(tx: Transaction, installationId: number, userId: number): Promise<void> {
  const { rows } = await tx.execute(
    sql`SELECT role FROM users WHERE id = ${userId} AND installation_id = ${installationId}`,
  );
  if (rows[0]?.role === 'collaborator') throw ApiError.invalid('trigger.triggeractions', unseatedDetail(userId));
}

/**
 * The last event id handed out, by anyone: what this transaction writes next is above it. The
 * sequence answers at once, where `max(id)` would read every event of the installation; ids of
 * other transactions' events inside a run's range do no harm, a range being looked up by ticket.
 */
async function lastEventId(tx: Transaction): Promise<number> {
  const { rows } = await tx.execute(sql`SELECT coalesce(pg_sequence_last_value('events_id_seq'), 0) AS id`);
  return Number(rows[0]!.id);
}
