import { and, eq, sql, type SQL } from 'drizzle-orm';
import { intList } from '../../db/sql-values';
import { z } from 'zod';
import { AGENTS, EVERYONE } from '../../auth/access';
import {
  companyCustomers,
  EDIT_METHODS,
  inboxes,
  ticketActivities,
  ticketFollowers,
  ticketMessages,
  ticketPriorities,
  ticketReads,
  ticketSources,
  ticketStatuses,
  ticketHelpdocArticles,
  ticketTags,
  tickets,
  ticketTypes,
  timeLogs,
  users,
} from '../../db/schema';
import {
  AUDIT_SET,
  defineResource,
  refJson,
  refSchema,
  manyToMany,
  ownedRecords,
  referencedBy,
  referenceField,
  referenceInput,
  refProperty,
  shapeOf,
  shapeOfFields,
  timeProperty,
  type WriteContext,
} from '../../engine';
import { ApiError } from '../../http/errors';
import { customerShape } from '../customers/customer-shape';
import { inboxShape } from '../inboxes/inbox-shape';
import { helpdocArticlesResource } from '../helpdocs/articles.resource';
import { ticketPrioritiesResource } from '../ticketpriorities/ticketpriorities.resource';
import { ticketSourcesResource } from '../ticketsources/ticketsources.resource';
import { ticketStatusesResource } from '../ticketstatuses/ticketstatuses.resource';
import { ticketTypesResource } from '../tickettypes/tickettypes.resource';
import { timeLogFields } from '../timelogs/timelogs.resource';
import { includedUsers, userShape } from '../users/user-shape';
import { messageShape } from './message-shape';
import { activityFields } from './ticket-activities.resource';
import { customerInput, resolveCustomer } from './ticket-customer';
import { finishSplit, prepareSplit, type SplitSource } from './split';
import { idValue } from '../../http/params';
import { visibleTickets } from './ticket-visibility';
import { addressList, addThreadEntry, openingEntry } from './thread-entry';
import { ticketSlaFields } from './ticket-sla-fields';
import { ticketTagsRelation } from './ticket-tags';
import { ticketTasksRelation } from './ticket-tasks';
import { refreshSearch } from './ticket-search';
import { MAX_FILES_PER_ENTRY } from '../files/attach';
import { customFieldValues, prepareCustomFieldValues, requireFieldsToResolve } from '../customfields/ticket-values';
import {
  customFieldsCondition,
  customFieldsParam,
  parseCustomFieldCriteria,
} from '../customfields/ticket-value-filter';
import { archivedCondition, archivedParam, type ArchivedValue } from './archived';
import { plannedTicketHooks } from './planned-ticket';

const addresses = addressList;

/** What a ticket's write knows before it that its finish needs. */
interface TicketBefore {
  /** the split a create body asks for */
  split?: SplitSource;
  /** an update's status before it: a status sent again is no move */
  statusId?: number;
}

/** Before a ticket is written: its customer named by email found or made, its defaults, a seated agent. */
async function prepareTicket(
  context: WriteContext,
  record: Record<string, unknown>,
  id: number | undefined,
): Promise<TicketBefore> {
  const { tx, who } = context;
  const before: TicketBefore = {};
  if (record.fromThreadId !== undefined) before.split = await prepareSplit(context, record);
  if (record.customer !== undefined)
    record.customer = await resolveCustomer(context, record.customer as z.output<typeof customerInput>);
  if (id === undefined) {
    if (record.customer === undefined)
      throw ApiError.invalid('ticket.customer', 'must be set: {"id": ...} or {"email": ...}');
    // the inbox's status for new tickets, else active; the installation's default type
    if (record.status === undefined) {
      const [inbox] = await tx
        .select({ status: inboxes.ticketStatusId })
        .from(inboxes)
        .where(eq(inboxes.id, record.inbox as number));
      record.status = inbox?.status ?? 1;
    }
    if (record.type === undefined) {
      const [type] = await tx
        .select({ id: ticketTypes.id })
        .from(ticketTypes)
        .where(
          and(
            eq(ticketTypes.installationId, who.installationId),
            eq(ticketTypes.isDefault, true),
            eq(ticketTypes.state, 'active'),
          ),
        );
      if (type) record.type = type.id;
    }
  }
  let inboxId = record.inbox as number | undefined;
  if (id !== undefined && (record.status !== undefined || record.customfields !== undefined)) {
    const [current] = await tx
      .select({ statusId: tickets.statusId, inboxId: tickets.inboxId })
      .from(tickets)
      .where(and(eq(tickets.id, id), eq(tickets.installationId, who.installationId)));
    // not there: the update answers 404
    if (!current) return before;
    before.statusId = current.statusId;
    inboxId ??= current.inboxId;
  }
  if (record.customfields !== undefined) {
    record.customfields = await prepareCustomFieldValues(
      tx,
      who,
      record.customfields as Parameters<typeof prepareCustomFieldValues>[2],
      { id, inboxId },
      'ticket.customfields',
    );
  }
  await requireSeatedAgent(context, record);
  return before;
}

/** A ticket is assigned to a teammate with a seat: a collaborator is a 400. */
async function requireSeatedAgent({ tx, who }: WriteContext, record: Record<string, unknown>): Promise<void> {
  if (typeof record.agent !== 'number') return;
  const [agent] = await tx
    .select({ role: users.role })
    .from(users)
    .where(and(eq(users.id, record.agent), eq(users.installationId, who.installationId)));
  if (agent?.role === 'collaborator')
    throw ApiError.invalid(
      'ticket.agent',
      'a collaborator has no seat: a ticket is assigned to an owner, admin or agent',
    );
}

/**
 * Once written: the first message becomes the first thread entry (on create), and the caller
 * must still see the ticket (an agent cannot put one where they do not work).
 */
async function finishTicket(
  context: WriteContext,
  record: Record<string, unknown>,
  id: number,
  created: boolean,
  before: TicketBefore | undefined,
): Promise<void> {
  if (created && before?.split) await finishSplit(context, before.split, id);
  const opening = created ? openingEntry(record, id, record.customer as number) : undefined;
  if (opening) {
    await addThreadEntry(context, opening);
  } else if (created && record.files !== undefined) {
    throw ApiError.invalid('ticket.files', 'files are attached to the first message: send `message` too');
  } else if (created || record.subject !== undefined || record.customer !== undefined) {
    await refreshSearch(context, [id]);
  }
  if (typeof record.isRead === 'boolean') await markRead(context, id, record.isRead);
  if (record.status !== undefined && (created || record.status !== before?.statusId))
    await requireFieldsToResolve(context, [id], 'ticket.status');
  await requireStillVisible(context, [id]);
}

/** A ticket read by this teammate: marked, and no entry since that someone else wrote (a customer, another teammate). */
function readByCaller(userId: number): SQL {
  return sql`EXISTS (SELECT 1 FROM ${ticketReads} r WHERE r.ticket_id = ${tickets.id} AND r.user_id = ${userId}
    AND NOT EXISTS (SELECT 1 FROM ticket_messages m WHERE m.ticket_id = ${tickets.id} AND m.created_at > r.read_at AND m.state = 'active' AND NOT m.is_draft
      AND (m.customer_id IS NOT NULL OR m.created_by IS DISTINCT FROM ${userId})))`;
}

/** `isRead` as the caller sends it: read now, or unread again. */
async function markRead({ tx, who }: WriteContext, ticketId: number, read: boolean): Promise<void> {
  if (who.kind !== 'teammate') return;
  if (read) {
    await tx
      .insert(ticketReads)
      .values({ installationId: who.installationId, ticketId, userId: who.userId })
      .onConflictDoUpdate({ target: [ticketReads.ticketId, ticketReads.userId], set: { readAt: sql`now()` } });
  } else {
    await tx.delete(ticketReads).where(and(eq(ticketReads.ticketId, ticketId), eq(ticketReads.userId, who.userId)));
  }
}

/** An agent cannot put a ticket where they would not see it. */
async function requireStillVisible({ tx, who }: WriteContext, ids: number[]): Promise<void> {
  const scope = visibleTickets(who);
  if (!scope || ids.length === 0) return;
  const { rows } = await tx.execute(
    sql`SELECT count(*)::int AS seen FROM tickets WHERE id IN ${intList(ids)} AND ${scope}`,
  );
  if (Number(rows[0]!.seen) < ids.length) {
    throw ApiError.forbidden(
      'the ticket would leave what you see: put it in an inbox you work (assigned to you, where your access is restricted)',
    );
  }
}

/** A bulk update, once it changed the tickets, is held to what `finishTicket` checks of a single one. */
async function checkBulkUpdate(context: WriteContext, record: Record<string, unknown>, ids: number[]): Promise<void> {
  await requireStillVisible(context, ids);
  if (record.status !== undefined) await requireFieldsToResolve(context, ids, 'ticket.status');
  if (record.subject !== undefined) await refreshSearch(context, ids);
}

/** A ticket's companies are its customer's. */
const companiesOfCustomer = (condition: SQL) =>
  sql`EXISTS (SELECT 1 FROM ${companyCustomers} WHERE ${companyCustomers.customerId} = ${tickets.customerId} AND ${condition})`;

export const ticketsResource = defineResource({
  type: 'tickets',
  singular: 'ticket',
  title: { one: 'Ticket', many: 'Tickets' },
  table: tickets,
  fields: {
    subject: { column: tickets.subject, schema: z.string().trim().min(1).max(998), required: true },
    inbox: referenceField(tickets.inboxId, { table: inboxes, type: 'inboxes' }, { required: true }),
    customer: {
      column: tickets.customerId,
      schema: customerInput,
      output: refProperty(tickets.customerId, 'customers', false),
      notInBulk: true,
    },
    agent: referenceField(tickets.agentId, { table: users, type: 'users' }),
    status: {
      ...referenceField(tickets.statusId, { table: ticketStatuses, type: 'ticketstatuses' }),
      schema: referenceInput('ticketstatuses'),
    },
    priority: referenceField(tickets.priorityId, { table: ticketPriorities, type: 'ticketpriorities' }),
    // a ticket's `type` is its ticket type, as the platform's client reads it
    type: referenceField(tickets.typeId, { table: ticketTypes, type: 'tickettypes' }),
    source: referenceField(tickets.sourceId, { table: ticketSources, type: 'ticketsources' }),
    cc: { column: tickets.cc, schema: addresses },
    bcc: { column: tickets.bcc, schema: addresses },
    notifyCustomer: {
      column: tickets.notifyCustomer,
      schema: z.boolean().meta({ description: 'whether the customer is told of the new ticket by mail (mail out)' }),
    },
    imagesHidden: { column: tickets.imagesHidden, schema: z.boolean() },
    originalRecipient: { column: tickets.originalRecipient, schema: z.string(), readOnly: true },
    previewText: { column: tickets.previewText, schema: z.string(), readOnly: true },
    spam_score: { column: tickets.spamScore, schema: z.number(), readOnly: true },
    mergedInto: referenceField(tickets.mergedIntoId, { table: tickets, type: 'tickets' }, { readOnly: true }),
    parent: referenceField(tickets.parentId, { table: tickets, type: 'tickets' }, { readOnly: true }),
    responseTimeMins: {
      column: tickets.responseTimeMins,
      schema: z.number().int().nullable().meta({
        description:
          "working minutes (the default business hours', else calendar) from creation to the first teammate reply; null before it",
      }),
      readOnly: true,
    },
    resolutionTimeMins: {
      column: tickets.resolutionTimeMins,
      schema: z
        .number()
        .int()
        .nullable()
        .meta({ description: 'working minutes from creation to the last move into solved or closed; null while open' }),
      readOnly: true,
    },
    happinessSurveySentAt: {
      column: tickets.happinessSurveySentAt,
      schema: z.unknown(),
      readOnly: true,
      output: timeProperty(tickets.happinessSurveySentAt),
    },
    ...ticketSlaFields,
  },
  inputs: {
    isRead: z.boolean().meta({ description: 'marks the ticket read (or unread again) for the caller' }),
  },
  createInputs: {
    message: z
      .string()
      .max(1_000_000)
      .meta({ description: 'on create: the first message, the first thread entry (written by the customer)' }),
    editMethod: z
      .enum(EDIT_METHODS)
      .meta({ description: 'how `message` is written: html (default) or markdown, rendered; every body is sanitized' }),
    fromThreadId: idValue.meta({
      description: 'split: the new ticket starts with this thread entry, moved from its ticket (then no `message`)',
    }),
    files: z
      .array(referenceInput('files'))
      .max(MAX_FILES_PER_ENTRY)
      .meta({ description: 'confirmed uploads attached to the first message' }),
    fromTicketId: idValue.meta({ description: 'split: the ticket `fromThreadId` is on (checked when given)' }),
  },
  computed: {
    isRead: {
      type: 'boolean',
      schema: z.boolean().meta({
        description:
          'for the caller: marked read (`isRead: true`) and nothing new from anyone else in the thread since',
      }),
      expr: (who) => (who.kind === 'teammate' ? readByCaller(who.userId) : sql`false`),
    },
    happinessRating: {
      type: 'integer',
      schema: refSchema('happinessratings')
        .nullable()
        .meta({ description: "the customer's satisfaction rating (`/v2/happinessratings/{id}.json`), or null" }),
      expr: refJson(
        sql`(SELECT hr.id FROM happiness_ratings hr WHERE hr.ticket_id = ${tickets.id} AND hr.state = 'active')`,
        'happinessratings',
      ),
    },
    messageCount: {
      type: 'integer',
      schema: z
        .number()
        .int()
        .meta({ description: 'thread entries to or from the customer (notes and drafts left out)' }),
      expr: sql`(SELECT count(*)::int FROM ticket_messages m WHERE m.ticket_id = ${tickets.id} AND m.state = 'active' AND m.thread_type <> 'note' AND NOT m.is_draft)`,
    },
  },
  filter: [
    ...AUDIT_SET,
    'agent',
    'customer',
    'inbox',
    'imagesHidden',
    'isRead',
    'mergedInto',
    'messageCount',
    'notifyCustomer',
    'parent',
    'priority',
    'resolutionTimeMins',
    'responseTimeMins',
    'source',
    'status',
    'subject',
    'type',
    ...Object.keys(ticketSlaFields),
    'companies.id',
    'customers.id',
    'inboxes.id',
    'priorities.id',
    'sources.id',
    'statuses.id',
    'tags.id',
    'types.id',
    'users.id',
  ],
  relatedFilter: {
    'customers.id': { expr: tickets.customerId, type: 'integer' },
    'inboxes.id': { expr: tickets.inboxId, type: 'integer' },
    'priorities.id': { expr: tickets.priorityId, type: 'integer' },
    'sources.id': { expr: tickets.sourceId, type: 'integer' },
    'statuses.id': { expr: tickets.statusId, type: 'integer' },
    'types.id': { expr: tickets.typeId, type: 'integer' },
    // the agent
    'users.id': { expr: tickets.agentId, type: 'integer' },
    'tags.id': {
      expr: ticketTags.tagId,
      type: 'integer',
      exists: (condition) =>
        sql`EXISTS (SELECT 1 FROM ${ticketTags} WHERE ${ticketTags.ticketId} = ${tickets.id} AND ${condition})`,
    },
    'companies.id': { expr: companyCustomers.companyId, type: 'integer', exists: companiesOfCustomer },
  },
  listParams: {
    customfields: {
      schema: customFieldsParam,
      where: (db, who, value) =>
        customFieldsCondition(db, who.installationId, parseCustomFieldCriteria(value as string | undefined)),
    },
    archived: {
      schema: archivedParam,
      where: async (_db, _who, value) => archivedCondition(value as ArchivedValue | undefined),
    },
  },
  orderByExtra: { lastMessageAt: tickets.lastMessageAt },
  relations: {
    customfields: customFieldValues,
    tags: ticketTagsRelation,
    // project-management tasks, linked and unlinked by their own operations (link-ticket-task.route.ts, unlink-ticket-task.route.ts)
    tasks: ticketTasksRelation,
    followers: manyToMany({
      name: 'followers',
      target: userShape,
      through: ticketFollowers,
      parentKey: ticketFollowers.ticketId,
      targetKey: ticketFollowers.userId,
    }),
    helpdocarticles: manyToMany({
      name: 'helpdocarticles',
      target: shapeOf(helpdocArticlesResource),
      through: ticketHelpdocArticles,
      parentKey: ticketHelpdocArticles.ticketId,
      targetKey: ticketHelpdocArticles.articleId,
    }),
    messages: ownedRecords({ shape: messageShape, parentKey: ticketMessages.ticketId }),
    timelogs: ownedRecords({
      shape: shapeOfFields({ type: 'timelogs', component: 'TimeLog', table: timeLogs, fields: timeLogFields }),
      parentKey: timeLogs.ticketId,
    }),
    activities: ownedRecords({
      shape: shapeOfFields({
        type: 'ticketactivities',
        component: 'TicketActivity',
        table: ticketActivities,
        fields: activityFields,
      }),
      parentKey: ticketActivities.ticketId,
    }),
    users: includedUsers((t) => [(t as typeof tickets).agentId]),
    customers: referencedBy({ target: customerShape, columns: (t) => [(t as typeof tickets).customerId] }),
    inboxes: referencedBy({ target: inboxShape, columns: (t) => [(t as typeof tickets).inboxId] }),
    ticketstatuses: referencedBy({
      target: shapeOf(ticketStatusesResource),
      columns: (t) => [(t as typeof tickets).statusId],
    }),
    ticketpriorities: referencedBy({
      target: shapeOf(ticketPrioritiesResource),
      columns: (t) => [(t as typeof tickets).priorityId],
    }),
    tickettypes: referencedBy({ target: shapeOf(ticketTypesResource), columns: (t) => [(t as typeof tickets).typeId] }),
    ticketsources: referencedBy({
      target: shapeOf(ticketSourcesResource),
      columns: (t) => [(t as typeof tickets).sourceId],
    }),
  },
  // what the platform's client marshals on every ticket
  includeAliases: { ticketactivities: 'activities' },
  ignored: ['contact', 'readonly', 'spam_rules', 'suggestions'],
  access: { read: EVERYONE, write: AGENTS },
  examples: {
    // only the inbox is the installation's own: the rest works as written anywhere (status 3 is the platform's "waiting on customer")
    create: {
      subject: 'The printer is on fire',
      inbox: { id: 1 },
      customer: { email: 'grace@customer.example', firstName: 'Grace' },
      message: '<p>Smoke is coming out of the paper tray.</p>',
    },
    update: { subject: 'The printer was on fire', status: { id: 3 } },
  },
  scope: visibleTickets,
  beforeWrite: prepareTicket,
  // of prepareTicket's rules only the seated agent concerns what a bulk update may set (no customer, custom fields or split)
  beforeBulkWrite: (context, record) => requireSeatedAgent(context, record),
  afterWrite: finishTicket,
  afterBulkWrite: checkBulkUpdate,
  planned: plannedTicketHooks,
});
