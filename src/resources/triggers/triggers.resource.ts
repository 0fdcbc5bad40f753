import { and, eq, sql, type SQL } from 'drizzle-orm';
import { intList } from '../../db/sql-values';
import { z } from 'zod';
import { ADMINS, AGENTS } from '../../auth/access';
import type { Actor } from '../../auth/principal';
import type { Queryable } from '../../db/client';
import { businessHours, TRIGGER_TYPES, triggerInboxes, triggers } from '../../db/schema';
import { AUDIT_SET, defineResource, manyToMany, referenceField, type Writer, type WriteContext } from '../../engine';
import { ApiError } from '../../http/errors';
import { displayOrderField } from '../../lib/vocabulary-fields';
import { inboxShape } from '../inboxes/inbox-shape';
import { includedUsers } from '../users/user-shape';
import { actionsRelation, conditionsRelation } from './trigger-entries';
import {
  namesNewEntry,
  problemsAsChecks,
  problemsOf,
  refusalStatement,
  selectionUnchangedCheck,
  storedSelection,
  storedTrigger,
  storedTriggerPrinted,
  unchangedCheck,
  type Check,
  type Problem,
  type StoredTrigger,
} from './trigger-rules';

/** What the body changes beside switching the trigger on or off. */
const changedBesidesState = (record: Record<string, unknown>) =>
  Object.keys(record).filter((name) => name !== 'state' && name !== 'applyToExistingTickets');

/** What a system trigger refuses: any change but its `state` (undefined when the body makes none). */
function systemRefusal(record: Record<string, unknown>, systemId: number): ApiError | undefined {
  const changed = changedBesidesState(record);
  return changed.length === 0
    ? undefined
    : ApiError.invalid(
        `trigger.${changed[0]}`,
        `trigger ${systemId} is a system trigger: it can only be switched on or off (\`state\`)`,
      );
}

/** A system trigger is switched on or off, nothing else: `ids` are the triggers a single or a bulk update changes. */
async function guardSystem({ tx, who }: WriteContext, record: Record<string, unknown>, ids: number[]): Promise<void> {
  if (ids.length === 0 || changedBesidesState(record).length === 0) return;
  const [system] = await tx
    .select({ id: triggers.id })
    .from(triggers)
    .where(
      and(
        eq(triggers.installationId, who.installationId),
        eq(triggers.isSystem, true),
        sql`${triggers.id} IN ${intList(ids)}`,
      ),
    )
    .limit(1);
  if (system) throw systemRefusal(record, system.id)!;
}

/** The problem that refuses a trigger as written: any while it is active; while it is off, one not about something deleted (it is switched on only once that is fixed). */
async function firstProblem({ tx, who }: WriteContext, trigger: StoredTrigger): Promise<Problem | undefined> {
  return (await problemsOf(tx, who.installationId, trigger)).find((p) => trigger.state === 'active' || !p.missing);
}

/**
 * `applyToExistingTickets: true`: the cron applies the trigger to the live tickets there are, in
 * turn (`ticket-walks.ts`, `runTicketWalks`), from the first. An automatic trigger of the team's
 * only: a manual one is applied by hand, a system one does no more than it says.
 */
async function applyToExisting(
  { tx }: WriteContext,
  trigger: StoredTrigger,
  record: Record<string, unknown>,
): Promise<void> {
  if (!appliesToExisting(trigger, record)) return;
  await tx.execute(fromTheFirstTicket(tx, sql`${trigger.id}::int`));
}

/** Why the trigger cannot be applied to the tickets there are, when the write asks it to be. */
function existingRefusal(
  trigger: Pick<StoredTrigger, 'isSystem' | 'type'>,
  record: Record<string, unknown>,
): Problem | undefined {
  if (record.applyToExistingTickets !== true) return undefined;
  const source = 'trigger.applyToExistingTickets';
  if (trigger.isSystem) return { source, detail: 'a system trigger can only be switched on or off (`state`)' };
  if (trigger.type !== 'Automatic')
    return { source, detail: 'a manual trigger is applied by hand: PATCH /v2/tickets/triggerapply.json' };
  return undefined;
}

/** Whether the write asks the cron to apply the trigger to the tickets there are; a 400 where it cannot be. */
function appliesToExisting(
  trigger: Pick<StoredTrigger, 'isSystem' | 'type'>,
  record: Record<string, unknown>,
): boolean {
  const refused = existingRefusal(trigger, record);
  if (refused) throw ApiError.invalid(refused.source, refused.detail);
  return record.applyToExistingTickets === true;
}

const fromTheFirstTicket = (db: Writer, id: SQL) =>
  db
    .update(triggers)
    .set({ existingCursor: 0 })
    .where(sql`${triggers.id} = ${id}`)
    .getSQL();

/** Once written: its conditions and actions, taken together, are ones it can run (a 400 names the first that is not); applied to existing tickets if asked. */
async function requireRunnable(context: WriteContext, record: Record<string, unknown>, id: number): Promise<void> {
  const trigger = await storedTrigger(context.tx, context.who.installationId, id);
  if (!trigger) return;
  const problem = await firstProblem(context, trigger);
  if (problem) throw ApiError.invalid(problem.source, problem.detail);
  await applyToExisting(context, trigger, record);
}

/** The statements a batched write's `before` decided on: checks before the record is written (`first`), and its rules after it (`after`, given its id). */
const PLAN = Symbol('triggerPlan');

interface TriggerPlan {
  first: SQL[];
  after: (db: Writer, id: SQL) => SQL[];
}

const planOn = (record: Record<string, unknown>) =>
  (record as Record<symbol, unknown>)[PLAN] as TriggerPlan | undefined;

/** New entries come after the stored ones, in the order they are inserted: as their ids will be. */
const idOrder = (id: number) => (id < 0 ? Number.MAX_SAFE_INTEGER + id : id);

const NEW_TRIGGER: StoredTrigger = {
  id: 0,
  name: '',
  type: 'Automatic',
  state: 'active',
  isSystem: false,
  businesshoursId: null,
  inboxes: [],
  conditions: [],
  actions: [],
};

/**
 * `guardSystem` and `requireRunnable` for a write sent as one batch. A new trigger's rules need no
 * database beyond what it names (one round trip). An update's are over the stored trigger with
 * what the body changes, read first (two round trips), the batch refusing with a 409 if the
 * trigger changed since. The conditions and actions sent are made the list the interactive write
 * makes of them (`resolve`: kept, changed, removed, new), and the trigger as it will be written is
 * held to the rules: what needs no more is decided in the Worker, what hangs on the records it
 * names is checked in the batch in the same order (`problemsAsChecks`), after its entries are
 * written, a new entry named by the id the batch gives it. A body naming no entries has its first
 * refusal that hangs on nothing answered in the Worker when nothing comes before it.
 */
async function plannedRules(
  who: Actor,
  record: Record<string | symbol, unknown>,
  id: number | undefined,
  read: Queryable,
): Promise<boolean> {
  const stored = id === undefined ? undefined : await storedTriggerPrinted(read, who.installationId, id);
  if (stored?.trigger.isSystem) {
    const refused = systemRefusal(record, stored.trigger.id);
    if (refused) throw refused;
  }
  // an update of a trigger that is not there is answered by the batch (404), before anything its lists name
  if (id !== undefined && !stored) {
    for (const list of ['conditions', 'triggeractions']) if (record[list] !== undefined) record[list] = [];
    return true;
  }
  const base = stored?.trigger ?? NEW_TRIGGER;
  const conditions = conditionsRelation.resolve(
    who.installationId,
    base.conditions,
    record.conditions,
    'trigger.conditions',
  );
  const actions = actionsRelation.resolve(
    who.installationId,
    base.actions,
    record.triggeractions,
    'trigger.triggeractions',
  );
  if (record.conditions !== undefined) record.conditions = conditions.value;
  if (record.triggeractions !== undefined) record.triggeractions = actions.value;
  const written: StoredTrigger = {
    ...base,
    type: (record.type as StoredTrigger['type'] | undefined) ?? base.type,
    state: (record.state as string | undefined) ?? base.state,
    conditions: (conditions.written as unknown as StoredTrigger['conditions']).sort(
      (a, b) => idOrder(a.id) - idOrder(b.id),
    ),
    actions: (actions.written as unknown as StoredTrigger['actions']).sort(
      (a, b) => a.displayOrder - b.displayOrder || idOrder(a.id) - idOrder(b.id),
    ),
  };
  const problems = (await problemsAsChecks(who.installationId, written)).filter(
    (p) => written.state === 'active' || !p.missing,
  );
  const refusals: Check[] = [...problems, ...[existingRefusal(written, record)].filter((p) => p !== undefined)];
  // the first refusal that hangs on nothing ends the list: the ones before it are checked in the batch
  const sure = refusals.findIndex((refusal) => refusal.when === undefined);
  const entriesWritten = conditions.writes || actions.writes;
  if (sure === 0 && !entriesWritten && !namesNewEntry(refusals[0]!))
    throw ApiError.invalid(refusals[0]!.source, refusals[0]!.detail);
  const checks = sure < 0 ? refusals : refusals.slice(0, sure + 1);
  const known = { condition: base.conditions.map((c) => c.id), action: base.actions.map((a) => a.id) };
  record[PLAN] = {
    first: stored && id !== undefined ? unchangedCheck(who.installationId, id, stored.print) : [],
    after: (db, triggerId) => [
      ...checks.map((check) => refusalStatement(check, triggerId, known)),
      ...(record.applyToExistingTickets === true ? [fromTheFirstTicket(db, triggerId)] : []),
    ],
  } satisfies TriggerPlan;
  return true;
}

/** `guardSystem` of a bulk update as a statement of its batch: the first system trigger the filter selects refuses a change besides its `state`. */
function systemGuardStatement(record: Record<string, unknown>, selected: SQL): SQL[] {
  const [changed] = changedBesidesState(record);
  if (changed === undefined) return [];
  return [
    sql`SELECT desk_refuse(400, ${`trigger.${changed}`}::text, 'trigger ' || s.id || ' is a system trigger: it can only be switched on or off (\`state\`)')
    FROM (SELECT ${triggers.id} AS id FROM ${triggers} WHERE ${selected} AND ${triggers.isSystem} ORDER BY ${triggers.id} LIMIT 1) s`,
  ];
}

/** A delete's refusal of the first system trigger among the triggers `selected` names: 409, switch it off instead. */
function systemTriggerRefusal(selected: SQL): SQL {
  return sql`SELECT desk_refuse(409, 'id', 'trigger ' || s.id || ' is a system trigger: switch it off (state: inactive) instead')
    FROM (SELECT ${triggers.id} AS id FROM ${triggers} WHERE ${selected} AND ${triggers.isSystem} ORDER BY ${triggers.id} LIMIT 1) s`;
}

/** What a bulk update's `bulkRead` decided on: checks before the update (`first`), and the triggers' rules after it (`after`). */
const BULK_PLAN = Symbol('triggerBulkPlan');

const bulkPlanOn = (record: Record<string, unknown>) =>
  (record as Record<symbol, unknown>)[BULK_PLAN] as { first: SQL[]; after: SQL[] } | undefined;

/**
 * `afterBulkWrite` for a bulk update sent as one batch: where it sets `state` or `type` (what bears
 * on whether a trigger can run), the triggers the filter selects are read first (two round
 * trips), each held to the rules as it will be written, in order, what hangs on the records it
 * names checked in the batch after the update (`trigger N: ...`); the batch refuses with a 409 if
 * they changed since.
 */
async function plannedBulkRules(
  who: Actor,
  record: Record<string | symbol, unknown>,
  selected: SQL,
  read: Queryable,
): Promise<void> {
  if (record.state === undefined && record.type === undefined) return;
  const { triggers: stored, print } = await storedSelection(read, who.installationId, selected);
  // the system triggers' guard comes first, as in the interactive write
  const [system] = stored.filter((trigger) => trigger.isSystem).sort((a, b) => a.id - b.id);
  const refused = system && systemRefusal(record, system.id);
  if (refused) throw refused;
  const checks: Array<Check & { triggerId: number }> = [];
  for (const trigger of stored) {
    const written: StoredTrigger = {
      ...trigger,
      type: (record.type as StoredTrigger['type'] | undefined) ?? trigger.type,
      state: (record.state as string | undefined) ?? trigger.state,
    };
    const problems = (await problemsAsChecks(who.installationId, written)).filter(
      (p) => written.state === 'active' || !p.missing,
    );
    const sure = problems.findIndex((problem) => problem.when === undefined);
    checks.push(
      ...(sure < 0 ? problems : problems.slice(0, sure + 1)).map((problem) => ({
        ...problem,
        detail: `trigger ${trigger.id}: ${problem.detail}`,
        triggerId: trigger.id,
      })),
    );
    if (sure >= 0) break;
  }
  // the first refusal hangs on nothing: answered in the Worker, nothing written
  if (checks[0] && checks[0].when === undefined) throw ApiError.invalid(checks[0].source, checks[0].detail);
  const none = { condition: [], action: [] };
  record[BULK_PLAN] = {
    first: stored.length ? selectionUnchangedCheck(who.installationId, selected, print) : [],
    after: checks.map((check) => refusalStatement(check, sql`${check.triggerId}::int`, none)),
  };
}

/**
 * Triggers (`/v2/triggers.json`) as the platform has them: conditions and actions written inline
 * or under `included.conditions` / `included.triggeractions`, automatic ones run on ticket events
 * and by the cron (`ticket-triggers.subscriber.ts`, `ticket-walks.ts`), manual ones applied by hand. Owners and admins write;
 * teammates read.
 */
export const triggersResource = defineResource({
  type: 'triggers',
  singular: 'trigger',
  title: { one: 'Trigger', many: 'Triggers' },
  table: triggers,
  liveStates: ['active', 'inactive', 'incomplete'],
  fields: {
    name: { column: triggers.name, schema: z.string().trim().min(1).max(255), required: true },
    description: { column: triggers.description, schema: z.string().max(2000) },
    type: {
      column: triggers.type,
      schema: z
        .enum(TRIGGER_TYPES)
        .meta({ description: 'Automatic (default): runs on ticket events and by the cron; Manual: applied by hand' }),
    },
    // the record's own `state`: active, inactive, or incomplete (set by the service when it refers to something deleted)
    state: {
      column: triggers.state,
      schema: z.enum(['active', 'inactive']).meta({
        description:
          'active or inactive; incomplete (read only): it refers to something deleted, and does not run until fixed',
      }),
    },
    isShared: { column: triggers.isShared, schema: z.boolean() },
    isSystem: { column: triggers.isSystem, schema: z.boolean(), readOnly: true },
    systemKey: {
      column: triggers.systemKey,
      schema: z.string().nullable().meta({
        description:
          "which of the service's own triggers it is (`notify.assigned`, `notify.customerReply`, `notify.newTicket`); null for a team's",
      }),
      readOnly: true,
    },
    agentHasAccess: { column: triggers.agentHasAccess, schema: z.boolean() },
    addToNewInboxes: { column: triggers.addToNewInboxes, schema: z.boolean() },
    displayOrder: displayOrderField(triggers.displayOrder),
    businesshours: referenceField(triggers.businesshoursId, { table: businessHours, type: 'businesshours' }),
  },
  computed: {
    applyingToExistingTickets: {
      type: 'boolean',
      schema: z.boolean().meta({
        description:
          'the cron is still applying it to the tickets there were when it was written (`applyToExistingTickets`)',
      }),
      expr: sql`(${triggers.existingCursor} IS NOT NULL)`,
    },
  },
  inputs: {
    applyToExistingTickets: z.boolean().meta({
      description:
        'true: the cron applies the (automatic) trigger to the tickets there are, in turn, as well as to those whose events come; false or absent: only the latter',
    }),
  },
  filter: [...AUDIT_SET, 'agentHasAccess', 'businesshours', 'displayOrder', 'isShared', 'isSystem', 'name', 'type'],
  defaultOrderBy: 'displayOrder',
  relations: {
    conditions: conditionsRelation,
    triggeractions: actionsRelation,
    inboxes: manyToMany({
      name: 'inboxes',
      target: inboxShape,
      through: triggerInboxes,
      parentKey: triggerInboxes.triggerId,
      targetKey: triggerInboxes.inboxId,
    }),
    users: includedUsers(),
  },
  includedWrites: ['conditions', 'triggeractions'],
  access: { read: AGENTS, write: ADMINS },
  examples: {
    create: { name: 'Tag as a refund', type: 'Manual', triggeractions: [{ type: 5, tags: [{ id: 1 }] }] },
    update: { description: 'Agents apply it to a ticket that asks for a refund' },
  },
  beforeWrite: (context, record, id) => guardSystem(context, record, id === undefined ? [] : [id]),
  beforeBulkWrite: guardSystem,
  afterWrite: requireRunnable,
  planned: {
    before: (who, record, id, read) => plannedRules(who, record, id, read),
    first: (_db, _who, record) => planOn(record)?.first ?? [],
    after: (db, _who, record, id) => planOn(record)?.after(db, id) ?? [],
    bulkRead: (who, record, selected, read) => plannedBulkRules(who, record, selected, read),
    bulkFirst: (_db, _who, record, selected) => [
      ...systemGuardStatement(record, selected),
      ...(bulkPlanOn(record)?.first ?? []),
    ],
    bulkAfter: (_db, _who, record) => bulkPlanOn(record)?.after ?? [],
    beforeDelete: (who, id) => [
      systemTriggerRefusal(sql`${triggers.id} = ${id} AND ${triggers.installationId} = ${who.installationId}`),
    ],
    bulkBeforeDelete: (_who, selected) => [systemTriggerRefusal(selected)],
  },
  async afterBulkWrite(context, record, ids) {
    // of what a bulk update may set, only `state` and `type` bear on whether a trigger runs (its conditions and actions are not set in bulk)
    if (record.state === undefined && record.type === undefined) return;
    for (const id of ids) {
      const trigger = await storedTrigger(context.tx, context.who.installationId, id);
      const problem = trigger && (await firstProblem(context, trigger));
      if (problem) throw ApiError.invalid(problem.source, `trigger ${id}: ${problem.detail}`);
    }
  },
  async beforeDelete({ tx, who }, id) {
    const [stored] = await tx
      .select({ isSystem: triggers.isSystem })
      .from(triggers)
      .where(and(eq(triggers.id, id), eq(triggers.installationId, who.installationId)));
    if (stored?.isSystem)
      throw ApiError.conflict('id', `trigger ${id} is a system trigger: switch it off (state: inactive) instead`);
  },
});
