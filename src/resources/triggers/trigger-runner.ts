import { eq, sql } from 'drizzle-orm';
import type { Env } from '../../app-env';
import { systemActor, type Actor } from '../../auth/principal';
import { openDatabase, type Database, type Transaction } from '../../db/client';
import { tickets, triggers } from '../../db/schema';
import { updateRecords, type WritableField } from '../../engine';
import { announceEvents } from '../../events/announce';
import { configureEvents, recordEvents } from '../../events/record-events';
import type { Subscriber } from '../../events/subscriber';
import type { WorkingHours } from '../../lib/working-time';
import { workingHoursOf } from '../businesshours/working-hours-of';
import { activitiesOfStored } from '../tickets/record-activities';
import { addThreadEntry } from '../tickets/thread-entry';
import { fillTemplate } from '../tickets/ticket-template';
import { ticketsResource } from '../tickets/tickets.resource';
import { ACTIONS, MAX_CHAIN_DEPTH } from './trigger-codes';
import { ticketFacts, triggerMatches, type TicketFacts } from './trigger-conditions';
import { activeTriggers, isTimeBased, problemsOf, type StoredTrigger } from './trigger-rules';
import { ApiError } from '../../http/errors';
import { errorField, log } from '../../lib/log';
import { requireFieldsToResolve } from '../customfields/ticket-values';

/** The ticket properties the actions set, by action type, with how their change reads in events. */
const SETS: Record<number, { column: string; property: string }> = {
  1: { column: 'statusId', property: 'status' },
  2: { column: 'priorityId', property: 'priority' },
  3: { column: 'typeId', property: 'type' },
  4: { column: 'agentId', property: 'agent' },
  7: { column: 'inboxId', property: 'inbox' },
};

/** Text a customer wrote, taken literally in markdown: no links, images or formatting of theirs in the helpdesk's reply. */
const literalMarkdown = (text: string) => text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (c) => `\\${c}`);

export const fill = (template: string, facts: TicketFacts) => fillTemplate(template, facts, literalMarkdown);

/** Why a run of the trigger failed: the refusal of one of its actions' writes, kept in its history line. */
class RunFailed extends Error {
  constructor(readonly detail: string) {
    super(detail);
  }
}

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
      case 5:
        await ticketsResource.relations.tags!.write!(
          tx,
          who,
          parent,
          idsOf().map((id) => ({ id })),
          'trigger.triggeractions',
        );
        break;
      case 6: {
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
      case 11:
        await ticketsResource.relations.followers!.write!(
          tx,
          who,
          parent,
          [{ id: Number(action.value) }],
          'trigger.triggeractions',
        );
        break;
      case 8:
      case 9:
        await addThreadEntry(context, {
          ticketId: facts.id,
          body: action.type === 9 ? fill(action.message, facts) : action.message,
          editMethod: 'markdown',
          threadType: action.type === 8 ? 'note' : 'message',
          customerId: null,
        });
        break;
      // 10, a webhook: sent by the webhooks' fan-out of the run's `triggered` event, which names it
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

/** The depth in its chain of a trigger set off by this event: one deeper than the run that wrote it, else 1. */
async function depthAfter(
  tx: Transaction,
  ticketId: number,
  event: { id: number; actorSystem: string | null },
): Promise<number> {
  if (event.actorSystem !== 'triggers') return 1;
  const { rows } =
    await tx.execute(sql`SELECT depth FROM trigger_chain_links WHERE ticket_id = ${ticketId} AND events_after < ${event.id} AND events_to >= ${event.id}
    ORDER BY events_to DESC LIMIT 1`);
  return rows[0] ? Number(rows[0].depth) + 1 : 1;
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
  env: Env,
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
    if (!(await runTrigger(tx, env, trigger, facts, depth, installationId)).failed) acted.push(trigger.id);
    facts = await ticketFacts(tx, installationId, ticketId);
  }
  return acted;
}

/**
 * Runs the automatic triggers on a ticket's events: its creation, a change of a property
 * conditions read, a tag, a reply or note. A change made by a trigger runs them one level deeper
 * in the chain.
 */
export const ticketTriggers: Subscriber = {
  name: 'triggers.run',
  does: "runs the installation's automatic triggers on the ticket (docs/resources/triggers.md): those whose conditions it meets act, each once, with a `triggered` event; a change a trigger makes runs them one level deeper in the chain",
  on: [
    { recordType: 'tickets', kinds: ['created'] },
    {
      recordType: 'tickets',
      kinds: ['updated'],
      changed: ['status', 'priority', 'type', 'source', 'inbox', 'agent', 'customer', 'subject'],
    },
    { recordType: 'tickets', kinds: ['linked', 'unlinked'] },
    { recordType: 'messages', kinds: ['created', 'updated'] },
  ],
  async handle(event, { tx, env }) {
    if (
      (event.kind === 'linked' || event.kind === 'unlinked') &&
      !['tags', 'customfields'].includes(String(event.data.relation))
    )
      return;
    const { ticketId, drafts } = await activitiesOfStored(tx, event);
    if (
      event.recordType === 'messages' &&
      !drafts.some((d) => ['ticket.agent.reply', 'ticket.customer.reply', 'ticket.note'].includes(d.eventType))
    )
      return;
    const candidates = (await activeTriggers(tx, event.installationId, 'Automatic')).filter(
      (trigger) => !isTimeBased(trigger),
    );
    if (candidates.length === 0) return;
    await runTriggersOn(
      tx,
      env,
      event.installationId,
      ticketId,
      await depthAfter(tx, ticketId, event),
      candidates,
      new Date(),
    );
  },
};

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
  env: Env,
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
      await db.transaction((tx) => runTriggersOn(tx, env, installationId, Number(id), 1, [trigger], now));
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
         AND (t.existing_cursor IS NOT NULL OR EXISTS (SELECT 1 FROM trigger_conditions c WHERE c.trigger_id = t.id AND c.state = 'active' AND c.field IN (15, 16, 17, 18)))`);
    for (const installationId of new Set(walking.map((row) => Number(row.installation_id)))) {
      const applying = new Set(
        walking
          .filter((row) => Number(row.installation_id) === installationId && row.existing === true)
          .map((row) => Number(row.id)),
      );
      for (const trigger of await activeTriggers(db.http, installationId, 'Automatic')) {
        if (isTimeBased(trigger)) {
          await walk(db, env, installationId, trigger, 'time', now);
          if (applying.has(trigger.id))
            await db.http.execute(sql`UPDATE triggers SET existing_cursor = NULL WHERE id = ${trigger.id}`);
        } else if (applying.has(trigger.id)) {
          await walk(db, env, installationId, trigger, 'existing', now);
        }
      }
    }
    await announceEvents(env, db);
  } finally {
    await db.close();
  }
}
