import { and, eq, sql } from 'drizzle-orm';
import { intList } from '../../db/sql-values';
import { z } from 'zod';
import { ADMINS, AGENTS } from '../../auth/access';
import { businessHours, TRIGGER_TYPES, triggerInboxes, triggers } from '../../db/schema';
import { AUDIT_SET, defineResource, manyToMany, referenceField, type WriteContext } from '../../engine';
import { ApiError } from '../../http/errors';
import { displayOrderField } from '../../lib/vocabulary-fields';
import { inboxShape } from '../inboxes/inbox-shape';
import { includedUsers } from '../users/user-shape';
import { actionsRelation, conditionsRelation } from './trigger-entries';
import { problemsOf, storedTrigger, type Problem, type StoredTrigger } from './trigger-rules';

/** A system trigger is switched on or off, nothing else: `ids` are the triggers a single or a bulk update changes. */
async function guardSystem({ tx, who }: WriteContext, record: Record<string, unknown>, ids: number[]): Promise<void> {
  const changed = Object.keys(record).filter((name) => name !== 'state' && name !== 'applyToExistingTickets');
  if (changed.length === 0 || ids.length === 0) return;
  const [system] = await tx
    .select({ id: triggers.id })
    .from(triggers)
    .where(and(eq(triggers.installationId, who.installationId), eq(triggers.isSystem, true), sql`${triggers.id} IN ${intList(ids)}`))
    .limit(1);
  if (system) throw ApiError.invalid(`trigger.${changed[0]}`, `trigger ${system.id} is a system trigger: it can only be switched on or off (\`state\`)`);
}

/** The problem that refuses a trigger as written: any while it is active; while it is off, one not about something deleted (it is switched on only once that is fixed). */
async function firstProblem({ tx, who }: WriteContext, trigger: StoredTrigger): Promise<Problem | undefined> {
  return (await problemsOf(tx, who.installationId, trigger)).find((p) => trigger.state === 'active' || !p.missing);
}

/**
 * `applyToExistingTickets: true`: the cron applies the trigger to the live tickets there are, in
 * turn (`trigger-runner.ts`, `runTicketWalks`), from the first. An automatic trigger of the team's
 * only: a manual one is applied by hand, a system one does no more than it says.
 */
async function applyToExisting({ tx }: WriteContext, trigger: StoredTrigger, record: Record<string, unknown>): Promise<void> {
  if (record.applyToExistingTickets !== true) return;
  if (trigger.isSystem) throw ApiError.invalid('trigger.applyToExistingTickets', 'a system trigger can only be switched on or off (`state`)');
  if (trigger.type !== 'Automatic') throw ApiError.invalid('trigger.applyToExistingTickets', 'a manual trigger is applied by hand: PATCH /v2/tickets/triggerapply.json');
  await tx.update(triggers).set({ existingCursor: 0 }).where(eq(triggers.id, trigger.id));
}

/** Once written: its conditions and actions, taken together, are ones it can run (a 400 names the first that is not); applied to existing tickets if asked. */
async function requireRunnable(context: WriteContext, record: Record<string, unknown>, id: number): Promise<void> {
  const trigger = await storedTrigger(context.tx, context.who.installationId, id);
  if (!trigger) return;
  const problem = await firstProblem(context, trigger);
  if (problem) throw ApiError.invalid(problem.source, problem.detail);
  await applyToExisting(context, trigger, record);
}

/**
 * Triggers (`/v2/triggers.json`) as the platform has them: conditions and actions written inline
 * or under `included.conditions` / `included.triggeractions`, automatic ones run on ticket events
 * and by the cron (`trigger-runner.ts`), manual ones applied by hand. Owners and admins write;
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
    type: { column: triggers.type, schema: z.enum(TRIGGER_TYPES).meta({ description: 'Automatic (default): runs on ticket events and by the cron; Manual: applied by hand' }) },
    // the record's own `state`: active, inactive, or incomplete (set by the service when it refers to something deleted)
    state: { column: triggers.state, schema: z.enum(['active', 'inactive']).meta({ description: 'active or inactive; incomplete (read only): it refers to something deleted, and does not run until fixed' }) },
    isShared: { column: triggers.isShared, schema: z.boolean() },
    isSystem: { column: triggers.isSystem, schema: z.boolean(), readOnly: true },
    systemKey: { column: triggers.systemKey, schema: z.string().nullable().meta({ description: "which of the service's own triggers it is (`notify.assigned`, `notify.customerReply`, `notify.newTicket`); null for a team's" }), readOnly: true },
    agentHasAccess: { column: triggers.agentHasAccess, schema: z.boolean() },
    addToNewInboxes: { column: triggers.addToNewInboxes, schema: z.boolean() },
    displayOrder: displayOrderField(triggers.displayOrder),
    businesshours: referenceField(triggers.businesshoursId, { table: businessHours, type: 'businesshours' }),
  },
  computed: {
    applyingToExistingTickets: {
      type: 'boolean',
      schema: z.boolean().meta({ description: 'the cron is still applying it to the tickets there were when it was written (`applyToExistingTickets`)' }),
      expr: sql`(${triggers.existingCursor} IS NOT NULL)`,
    },
  },
  inputs: {
    applyToExistingTickets: z.boolean().meta({ description: "true: the cron applies the (automatic) trigger to the tickets there are, in turn, as well as to those whose events come; false or absent: only the latter" }),
  },
  filter: [...AUDIT_SET, 'agentHasAccess', 'businesshours', 'displayOrder', 'isShared', 'isSystem', 'name', 'type'],
  defaultOrderBy: 'displayOrder',
  relations: {
    conditions: conditionsRelation,
    triggeractions: actionsRelation,
    inboxes: manyToMany({ name: 'inboxes', target: inboxShape, through: triggerInboxes, parentKey: triggerInboxes.triggerId, targetKey: triggerInboxes.inboxId }),
    users: includedUsers(),
  },
  includedWrites: ['conditions', 'triggeractions'],
  access: { read: AGENTS, write: ADMINS },
  beforeWrite: (context, record, id) => guardSystem(context, record, id === undefined ? [] : [id]),
  beforeBulkWrite: guardSystem,
  afterWrite: requireRunnable,
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
    const [stored] = await tx.select({ isSystem: triggers.isSystem }).from(triggers).where(and(eq(triggers.id, id), eq(triggers.installationId, who.installationId)));
    if (stored?.isSystem) throw ApiError.conflict('id', `trigger ${id} is a system trigger: switch it off (state: inactive) instead`);
  },
});

