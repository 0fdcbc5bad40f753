import { and, eq, sql, type SQL } from 'drizzle-orm';
import { intList } from '../../db/sql-values';
import { z } from 'zod';
import { ADMINS, EVERYONE } from '../../auth/access';
import type { Actor } from '../../auth/principal';
import { companyCustomers, tickets, timeLogs, users } from '../../db/schema';
import { refuseWhen } from '../../db/refusal';
import { AUDIT_SET, defineResource, referenceField, type WritableField, type WriteContext } from '../../engine';
import { ApiError } from '../../http/errors';
import { instantSchema } from '../../lib/time-values';
import { ofVisibleTicket, visibleTickets } from '../tickets/ticket-visibility';
import { includedUsers } from '../users/user-shape';

/** One entry logs at most a week: a larger figure is a typing slip (seconds for minutes). */
export const MAX_LOGGED_SECONDS = 7 * 24 * 3600;

export const timeLogFields: Record<string, WritableField> = {
  ticket: referenceField(timeLogs.ticketId, { table: tickets, type: 'tickets' }, { required: true }),
  user: referenceField(timeLogs.userId, { table: users, type: 'users' }),
  seconds: {
    column: timeLogs.seconds,
    schema: z
      .number()
      .int()
      .min(1)
      .max(MAX_LOGGED_SECONDS)
      .meta({ description: `the time spent, 1 to ${MAX_LOGGED_SECONDS} seconds (a week)` }),
    required: true,
  },
  date: {
    column: timeLogs.date,
    schema: instantSchema.meta({ description: 'when the work was done (RFC 3339); default: now' }),
  },
  billable: { column: timeLogs.billable, schema: z.boolean() },
  description: { column: timeLogs.description, schema: z.string().max(10_000) },
  timezoneOffset: {
    column: timeLogs.timezoneOffset,
    schema: z.number().int().min(-720).max(840).meta({ description: "the teammate's offset from UTC in minutes" }),
  },
};

const isAdmin = (who: Actor) => who.kind === 'teammate' && ADMINS.includes(who.role);

/**
 * Who logs: the caller unless named; an owner or admin may log for anyone, others only for
 * themselves (both decided in the Worker). The ticket must be one the caller sees (another's is
 * "not here", as a 404 would be); a teammate changes only their own logs.
 */
async function checkTimeLog(
  context: WriteContext,
  record: Record<string, unknown>,
  id: number | undefined,
): Promise<void> {
  settleUser(context.who, record, id);
  await checkLogChange(context, record, id === undefined ? [] : [id]);
}

/** The log's user as the body means it: `assignToCurrentUser`, else the caller on a create where none is named. */
function settleUser(who: Actor, record: Record<string, unknown>, id: number | undefined): void {
  if (record.assignToCurrentUser === true) {
    if (record.user !== undefined && record.user !== who.userId)
      throw ApiError.invalid('timeLog.user', 'name the user or assignToCurrentUser, not both');
    record.user = who.userId;
  }
  if (id === undefined && record.user === undefined) {
    if (who.userId === null) throw ApiError.invalid('timeLog.user', 'must be set');
    record.user = who.userId;
  }
}

/** Another teammate named as the log's user: only an owner or admin logs for them. */
function requireMayLogFor(who: Actor, record: Record<string, unknown>): void {
  if (record.user !== undefined && record.user !== who.userId && !isAdmin(who)) {
    throw ApiError.forbidden('only an owner or admin logs time for another teammate');
  }
}

const NOT_OWN_LOG = "only an owner or admin changes another teammate's time log";

/** Any of the logs `ids` (SQL, a list) another teammate's: what only an owner or admin may change. */
const anotherTeammates = (who: Actor, ids: SQL) =>
  sql`${timeLogs.id} IN ${ids} AND ${timeLogs.userId} IS DISTINCT FROM ${who.userId}`;

/** The live ticket `id`, where the caller sees it. */
const seenTicket = (who: Actor, id: number) =>
  and(eq(tickets.id, id), eq(tickets.state, 'active'), visibleTickets(who))!;

const notHere = (id: number) => `no tickets ${id} here`;

/** A write of the logs `ids` (none: a new one), single or bulk: the caller's own logs, for themselves, on a ticket they see, unless an owner or admin. */
async function checkLogChange(context: WriteContext, record: Record<string, unknown>, ids: number[]): Promise<void> {
  const { tx, who } = context;
  requireMayLogFor(who, record);
  await requireOwnLogs(context, ids);
  if (typeof record.ticket === 'number') {
    const [seen] = await tx.select({ id: tickets.id }).from(tickets).where(seenTicket(who, record.ticket));
    if (!seen) throw ApiError.invalid('timeLog.ticket', notHere(record.ticket));
  }
}

/** A teammate changes their own entries; an owner or admin anyone's. */
async function requireOwnLogs({ tx, who }: WriteContext, ids: number[]): Promise<void> {
  if (isAdmin(who) || ids.length === 0) return;
  const [another] = await tx
    .select({ id: timeLogs.id })
    .from(timeLogs)
    .where(anotherTeammates(who, intList(ids)))
    .limit(1);
  if (another) throw ApiError.forbidden(NOT_OWN_LOG);
}

/** `checkTimeLog`'s checks that need the database, as statements of a write sent as one batch. */
function timeLogChecks(who: Actor, record: Record<string, unknown>, id: number | undefined): SQL[] {
  return [
    ...(id === undefined || isAdmin(who)
      ? []
      : [
          refuseWhen(
            sql`EXISTS (SELECT 1 FROM ${timeLogs} WHERE ${anotherTeammates(who, intList([id]))})`,
            403,
            '',
            NOT_OWN_LOG,
          ),
        ]),
    ...(typeof record.ticket === 'number'
      ? [
          refuseWhen(
            sql`NOT EXISTS (SELECT 1 FROM ${tickets} WHERE ${seenTicket(who, record.ticket)})`,
            400,
            'timeLog.ticket',
            notHere(record.ticket),
          ),
        ]
      : []),
  ];
}

/** A teammate's bulk write reaches their own entries only (`selected`: the entries it selects); an owner's or admin's anyone's. */
function ownLogsOnly(who: Actor, selected: SQL): SQL[] {
  return isAdmin(who)
    ? []
    : [
        refuseWhen(
          sql`EXISTS (SELECT 1 FROM ${timeLogs} WHERE ${selected} AND ${timeLogs.userId} IS DISTINCT FROM ${who.userId})`,
          403,
          '',
          NOT_OWN_LOG,
        ),
      ];
}

/** A condition over the logged ticket. */
const ofTheTicket = (condition: SQL) =>
  sql`EXISTS (SELECT 1 FROM ${tickets} WHERE ${tickets.id} = ${timeLogs.ticketId} AND ${condition})`;

/** Time spent on tickets: `/v2/timelogs.json`, per ticket `/v2/tickets/{id}/timelogs.json`, totals by `/v2/timelogs/totals.json`. */
export const timeLogsResource = defineResource({
  type: 'timelogs',
  singular: 'timeLog',
  listKey: 'timeLogs',
  title: { one: 'TimeLog', many: 'TimeLogs', group: 'Tickets' },
  table: timeLogs,
  fields: timeLogFields,
  createInputs: {
    assignToCurrentUser: z
      .boolean()
      .meta({ description: "true: the log is the caller's (the default when `user` is not named)" }),
  },
  filter: [
    ...AUDIT_SET,
    'billable',
    'date',
    'description',
    'seconds',
    'ticket',
    'user',
    'companies.id',
    'customers.id',
    'inboxes.id',
    'tickets_id',
  ],
  relatedFilter: {
    // the platform's name for the logged ticket (its samples: `orderBy=tickets_id&orderMode=DESC`)
    tickets_id: { expr: timeLogs.ticketId, type: 'integer' },
    'customers.id': { expr: tickets.customerId, type: 'integer', exists: ofTheTicket },
    'inboxes.id': { expr: tickets.inboxId, type: 'integer', exists: ofTheTicket },
    'companies.id': {
      expr: companyCustomers.companyId,
      type: 'integer',
      exists: (condition) =>
        ofTheTicket(
          sql`EXISTS (SELECT 1 FROM ${companyCustomers} WHERE ${companyCustomers.customerId} = ${tickets.customerId} AND ${condition})`,
        ),
    },
  },
  defaultOrderBy: 'date',
  relations: { users: includedUsers((t) => [(t as typeof timeLogs).userId]) },
  ignored: ['timelogs_id'],
  access: { read: EVERYONE, write: EVERYONE },
  examples: {
    create: { ticket: { id: 1 }, seconds: 1800, billable: true, description: 'Reproduced the printer fault' },
    update: { seconds: 2700 },
  },
  scope: ofVisibleTicket(timeLogs.ticketId),
  beforeWrite: checkTimeLog,
  planned: {
    before: (who, record, id) => {
      settleUser(who, record, id);
      requireMayLogFor(who, record);
      return true;
    },
    first: (_db, who, record, id) => timeLogChecks(who, record, id),
    // `checkLogChange` over the logs the filter selects
    bulkFirst: (_db, who, record, selected) => {
      requireMayLogFor(who, record);
      return [...ownLogsOnly(who, selected), ...timeLogChecks(who, { ticket: record.ticket }, undefined)];
    },
    bulkAfter: () => [],
    beforeDelete: (who, id) => timeLogChecks(who, {}, id),
    bulkBeforeDelete: (who, selected) => ownLogsOnly(who, selected),
  },
  beforeBulkWrite: checkLogChange,
  beforeDelete: (context, id) => requireOwnLogs(context, [id]),
});
