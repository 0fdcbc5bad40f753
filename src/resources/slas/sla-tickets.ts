import { eq, sql } from 'drizzle-orm';
import type { Env } from '../../app-env';
import { systemActor } from '../../auth/principal';
import { openDatabase, type Transaction } from '../../db/client';
import { tickets } from '../../db/schema';
import { updateRecords, type WritableField, type WriteContext } from '../../engine';
import { announceEvents } from '../../events/announce';
import { configureEvents } from '../../events/record-events';
import { errorField, log } from '../../lib/log';
import type { WorkingHours } from '../../lib/working-time';
import { ticketSlaFields } from '../tickets/ticket-sla-fields';
import { advanceClocks, type ClockChange, type ClockResult, type SlaState, type TargetState } from './sla-clock';
import { appliedPolicy, enabledPolicies, matchingPolicy, type Policy } from './sla-policy';

/** The ticket's SLA properties as events watch them. */
const watched = Object.fromEntries(
  Object.entries(ticketSlaFields as Record<string, WritableField>).map(([name, field]) => [
    name,
    field.output ?? field.column,
  ]),
);

/** Looked up once per installation in a run of the cron (a drain handles one event at a time). */
interface Lookups {
  policies: Map<number, Policy[]>;
  hours: Map<number, WorkingHours | undefined>;
}
const freshLookups = (): Lookups => ({ policies: new Map(), hours: new Map() });

const dateOf = (value: unknown) => (value === null || value === undefined ? null : new Date(String(value)));

/**
 * Moves one ticket's clocks through a change and stores what they say: the policy that now
 * matches (first enabled in display order), due times and target states. A change of what the
 * ticket's client reads is an `updated` event of the ticket, by the system's `sla` part.
 */
export async function evaluateTicket(
  tx: Transaction,
  installationId: number,
  ticketId: number,
  change: ClockChange,
  now: Date,
  lookups: Lookups = freshLookups(),
): Promise<void> {
  // locked first, alone: a locking read with joins drops a row whose status changed while it waited
  await tx.execute(
    sql`SELECT id FROM tickets WHERE id = ${ticketId} AND installation_id = ${installationId} FOR UPDATE`,
  );
  const { rows } = await tx.execute(sql`
    SELECT t.created_at, t.state, s.code AS status_code, t.priority_id, t.inbox_id, t.type_id, t.customer_id,
      t.sla_id, t.sla_first_response_due_at, t.sla_first_response_status, t.sla_next_reply_due_at, t.sla_next_reply_status,
      t.sla_resolution_due_at, t.sla_resolution_status, t.sla_paused_since, t.sla_paused_minutes, t.sla_next_reply_since, t.sla_next_reply_paused_base,
      t.sla_breached, t.sla_check_at,
      coalesce((SELECT json_agg(tt.tag_id) FROM ticket_tags tt WHERE tt.ticket_id = t.id), '[]') AS tags,
      coalesce((SELECT json_agg(cc.company_id) FROM company_customers cc WHERE cc.customer_id = t.customer_id), '[]') AS companies,
      (SELECT min(m.created_at) FROM ticket_messages m WHERE m.ticket_id = t.id AND m.state = 'active' AND m.thread_type = 'message'
        AND NOT m.is_draft AND m.customer_id IS NULL) AS first_replied_at
      FROM tickets t JOIN ticket_statuses s ON s.id = t.status_id
     WHERE t.id = ${ticketId} AND t.installation_id = ${installationId}`);
  const row = rows[0];
  if (!row) return;
  if (row.state !== 'active') {
    // a deleted ticket's clocks stop where they are: nothing for the cron to look at
    await tx.execute(sql`UPDATE tickets SET sla_check_at = NULL WHERE id = ${ticketId} AND sla_check_at IS NOT NULL`);
    return;
  }
  if (!lookups.policies.has(installationId))
    lookups.policies.set(installationId, await enabledPolicies(tx, installationId));
  const policy = matchingPolicy(lookups.policies.get(installationId)!, {
    customers: [Number(row.customer_id)],
    companies: (row.companies as number[]).map(Number),
    inboxes: [Number(row.inbox_id)],
    tickettypes: row.type_id === null ? [] : [Number(row.type_id)],
    tags: (row.tags as number[]).map(Number),
  });
  const priorityId = row.priority_id === null ? null : Number(row.priority_id);
  const applied = policy && (await appliedPolicy(tx, installationId, policy, priorityId, lookups.hours));
  const stored: SlaState = {
    slaId: row.sla_id === null ? null : Number(row.sla_id),
    firstResponse: {
      due: dateOf(row.sla_first_response_due_at),
      status: row.sla_first_response_status as TargetState | null,
    },
    nextReply: { due: dateOf(row.sla_next_reply_due_at), status: row.sla_next_reply_status as TargetState | null },
    resolution: { due: dateOf(row.sla_resolution_due_at), status: row.sla_resolution_status as TargetState | null },
    pausedSince: dateOf(row.sla_paused_since),
    pausedMinutes: Number(row.sla_paused_minutes),
    nextReplySince: dateOf(row.sla_next_reply_since),
    nextReplyPausedBase: Number(row.sla_next_reply_paused_base),
  };
  const facts = {
    createdAt: new Date(String(row.created_at)),
    statusCode: String(row.status_code),
    firstRepliedAt: dateOf(row.first_replied_at),
  };
  const next = advanceClocks(stored, facts, change, applied, now);
  const iso = (date: Date | null) => (date === null ? null : date.toISOString());
  const values = columnsOf(next);
  const before = columnsOf({ ...stored, breached: row.sla_breached === true, checkAt: dateOf(row.sla_check_at) });
  const same = (a: unknown, b: unknown) =>
    a instanceof Date || b instanceof Date ? iso(a as Date | null) === iso(b as Date | null) : a === b;
  const changed = Object.keys(values).filter((name) => !same(values[name], before[name]));
  if (changed.length === 0) return;
  // what a client reads changed: the ticket is updated; only the clocks' bookkeeping: it is not
  const visible = changed.some(
    (name) =>
      !['slaPausedSince', 'slaPausedMinutes', 'slaNextReplySince', 'slaNextReplyPausedBase', 'slaCheckAt'].includes(
        name,
      ),
  );
  const audit = visible ? {} : { updatedAt: sql`${tickets.updatedAt}`, updatedBy: sql`${tickets.updatedBy}` };
  await updateRecords(
    tx,
    systemActor(installationId, 'sla'),
    { table: tickets, type: 'tickets', where: eq(tickets.id, ticketId) },
    { ...values, ...audit },
    watched,
  );
}

/** The clocks as the ticket's columns hold them. */
function columnsOf(state: ClockResult): Record<string, unknown> {
  return {
    slaId: state.slaId,
    slaFirstResponseDueAt: state.firstResponse.due,
    slaFirstResponseStatus: state.firstResponse.status,
    slaNextReplyDueAt: state.nextReply.due,
    slaNextReplyStatus: state.nextReply.status,
    slaResolutionDueAt: state.resolution.due,
    slaResolutionStatus: state.resolution.status,
    slaBreached: state.breached,
    slaPausedSince: state.pausedSince,
    slaPausedMinutes: state.pausedMinutes,
    slaNextReplySince: state.nextReplySince,
    slaNextReplyPausedBase: state.nextReplyPausedBase,
    slaCheckAt: state.checkAt,
  };
}

/** Tickets the cron looks at in one run, soonest first; more wait for the next run. */
const CHECK_BATCH = 500;

/**
 * The cron's look at the clocks (every five minutes): each ticket whose warning or breach has
 * fallen due is evaluated, in a transaction of its own, and its change is an event
 * (`slaFirstResponseStatus` from pending to warning or breached...), which webhooks send on.
 * Time is the clock's when it runs, not the schedule's: a late run never judges early, and no run
 * judges the future.
 */
export async function checkSlaClocks(env: Env): Promise<void> {
  configureEvents(env);
  const db = openDatabase(env);
  try {
    const now = new Date();
    const { rows } = await db.http.execute(
      sql`SELECT id, installation_id FROM tickets WHERE sla_check_at <= ${now.toISOString()}::timestamptz ORDER BY sla_check_at, id LIMIT ${CHECK_BATCH}`,
    );
    const lookups = freshLookups();
    for (const row of rows) {
      const installationId = Number(row.installation_id);
      try {
        await db.transaction((tx) => evaluateTicket(tx, installationId, Number(row.id), { at: now }, now, lookups));
      } catch (error) {
        // one ticket that fails does not hold up the others: it is looked at again in an hour
        log('error', "slas: a ticket's clocks could not be evaluated", {
          ticketId: Number(row.id),
          installationId,
          error: errorField(error),
        });
        await db.http.execute(
          sql`UPDATE tickets SET sla_check_at = now() + interval '1 hour' WHERE id = ${Number(row.id)}`,
        );
      }
    }
    await announceEvents(env, db);
  } finally {
    await db.close();
  }
}

/** A policy deleted leaves its tickets at once: no policy, no targets. */
export async function releaseTickets({ tx, who }: WriteContext, slaId: number): Promise<void> {
  const cleared = {
    slaId: null,
    slaFirstResponseDueAt: null,
    slaFirstResponseStatus: null,
    slaNextReplyDueAt: null,
    slaNextReplyStatus: null,
    slaResolutionDueAt: null,
    slaResolutionStatus: null,
    slaBreached: false,
    slaNextReplySince: null,
    slaCheckAt: null,
  };
  await updateRecords(
    tx,
    who,
    {
      table: tickets,
      type: 'tickets',
      where: sql`${tickets.slaId} = ${slaId} AND ${tickets.installationId} = ${who.installationId}`,
    },
    cleared,
    watched,
  );
}
