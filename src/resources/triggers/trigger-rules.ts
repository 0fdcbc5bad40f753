import { and, inArray, sql, type SQL } from 'drizzle-orm';
import { intList } from '../../db/sql-values';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Queryable, Transaction } from '../../db/client';
import { refuseWhen } from '../../db/refusal';
import {
  companies,
  customers,
  customFields,
  inboxes,
  tags,
  ticketPriorities,
  ticketSources,
  ticketStatuses,
  ticketTypes,
  triggerActions,
  triggerConditions,
  triggers,
  users,
  webhookEndpoints,
} from '../../db/schema';
import { tenantScope, type AuditedTable } from '../../engine';
import { MAX_ID } from '../../http/params';
import {
  ACTION,
  ACTIONS,
  CONDITION_FIELDS,
  FIELD,
  OPERATOR,
  OPERATORS,
  OPERATORS_OF,
  TIME_FIELDS,
  type ValueKind,
} from './trigger-codes';

/** A trigger as it runs: its parts in their order. */
export interface StoredTrigger {
  id: number;
  name: string;
  type: 'Automatic' | 'Manual';
  state: string;
  isSystem: boolean;
  businesshoursId: number | null;
  inboxes: number[];
  conditions: { id: number; field: number; operator: number; value: string; matchRequirement: 'ANY' | 'ALL' }[];
  actions: { id: number; type: number; value: string; message: string; displayOrder: number }[];
}

/** Whether the trigger waits on time (the cron runs it) rather than on events. */
export const isTimeBased = (trigger: StoredTrigger) => trigger.conditions.some((c) => TIME_FIELDS.includes(c.field));

const triggerRows = (installationId: number, where: ReturnType<typeof sql>) => sql`
  SELECT t.id, t.name, t.type, t.state, t.is_system, t.businesshours_id,
    coalesce((SELECT json_agg(i.inbox_id) FROM trigger_inboxes i WHERE i.trigger_id = t.id), '[]') AS inboxes,
    coalesce((SELECT json_agg(json_build_object('id', c.id, 'field', c.field, 'operator', c.operator, 'value', c.value, 'matchRequirement', c.match_requirement) ORDER BY c.id)
      FROM trigger_conditions c WHERE c.trigger_id = t.id AND c.state = 'active'), '[]') AS conditions,
    coalesce((SELECT json_agg(json_build_object('id', a.id, 'type', a.type, 'value', a.value, 'message', a.message, 'displayOrder', a.display_order) ORDER BY a.display_order, a.id)
      FROM trigger_actions a WHERE a.trigger_id = t.id AND a.state = 'active'), '[]') AS actions
    FROM triggers t WHERE t.installation_id = ${installationId} AND ${where}
   ORDER BY t.display_order, t.id`;

const parse = (row: Record<string, unknown>): StoredTrigger => ({
  id: Number(row.id),
  name: String(row.name),
  type: row.type as StoredTrigger['type'],
  state: String(row.state),
  isSystem: row.is_system === true,
  businesshoursId: row.businesshours_id === null ? null : Number(row.businesshours_id),
  inboxes: (row.inboxes as number[]).map(Number),
  conditions: row.conditions as StoredTrigger['conditions'],
  actions: row.actions as StoredTrigger['actions'],
});

const oneTrigger = (id: number) => sql`t.id = ${id} AND t.state <> 'deleted'`;

export async function storedTrigger(
  db: Queryable,
  installationId: number,
  id: number,
): Promise<StoredTrigger | undefined> {
  const { rows } = await db.execute(triggerRows(installationId, oneTrigger(id)));
  return rows[0] ? parse(rows[0]) : undefined;
}

/** A digest of the trigger as stored, its parts included: a write that read it can check nothing changed since. */
const printOf = (installationId: number, id: number) =>
  sql`(SELECT md5(row_to_json(x)::text) FROM (${triggerRows(installationId, oneTrigger(id))}) x)`;

/** `storedTrigger`, with its digest (`unchangedCheck`), in one read. */
export async function storedTriggerPrinted(
  db: Queryable,
  installationId: number,
  id: number,
): Promise<{ trigger: StoredTrigger; print: string } | undefined> {
  const { rows } = await db.execute(storedTriggerPrintedStatement(installationId, id));
  return printedTrigger(rows[0]);
}

/** `storedTriggerPrinted`'s statement, to read in a batch; `printedTrigger` reads its row. */
export const storedTriggerPrintedStatement = (installationId: number, id: number) =>
  sql`SELECT x.*, md5(row_to_json(x)::text) AS print FROM (${triggerRows(installationId, oneTrigger(id))}) x`;

export const printedTrigger = (row: Record<string, unknown> | undefined) =>
  row ? { trigger: parse(row), print: String(row.print) } : undefined;

/**
 * Statements of a batch refusing (409, as a lost race) when the trigger is no longer as it was
 * read: it is locked first, as every write of it locks it, so the check sees the last one committed.
 */
export function unchangedCheck(installationId: number, id: number, print: string): SQL[] {
  return [
    sql`SELECT 1 FROM triggers WHERE id = ${id} AND installation_id = ${installationId} FOR UPDATE`,
    refuseWhen(
      sql`${printOf(installationId, id)} IS DISTINCT FROM ${print}::text`,
      409,
      'trigger',
      'a simultaneous change got in the way; try again',
    ),
  ];
}

/** The triggers a bulk write's filter selects (`selected`, a condition on `triggers`), as stored. */
const selectionRows = (installationId: number, selected: SQL) =>
  triggerRows(installationId, sql`t.id IN (SELECT ${triggers.id} FROM ${triggers} WHERE ${selected})`);

/** A digest of the selected triggers as stored, their parts included. */
const selectionPrint = (rows: SQL) =>
  sql`(SELECT md5(coalesce(json_agg(row_to_json(y) ORDER BY y.id)::text, '[]')) FROM (${rows}) y)`;

/** The triggers a bulk write selects, as stored, and their digest (`selectionUnchangedCheck`), in one read. */
export async function storedSelection(
  db: Queryable,
  installationId: number,
  selected: SQL,
): Promise<{ triggers: StoredTrigger[]; print: string }> {
  const rows = selectionRows(installationId, selected);
  const { rows: found } = await db.execute(sql`SELECT x.*, ${selectionPrint(rows)} AS print FROM (${rows}) x`);
  return { triggers: found.map(parse), print: found[0] ? String(found[0].print) : '' };
}

/** `unchangedCheck` for the triggers a bulk write selects: locked first, then a 409 when they are not as they were read. */
export function selectionUnchangedCheck(installationId: number, selected: SQL, print: string): SQL[] {
  const printed = print === '' ? sql`md5('[]')` : sql`${print}::text`;
  return [
    sql`SELECT 1 FROM ${triggers} WHERE ${selected} ORDER BY ${triggers.id} FOR UPDATE`,
    refuseWhen(
      sql`${selectionPrint(selectionRows(installationId, selected))} IS DISTINCT FROM ${printed}`,
      409,
      'trigger',
      'a simultaneous change got in the way; try again',
    ),
  ];
}

/**
 * The installation's active triggers of a type, in the order they run: display order, then id.
 * The system's own are not among them: the module each belongs to does what it says (`system-triggers.ts`).
 */
export async function activeTriggers(
  db: Queryable,
  installationId: number,
  type: 'Automatic' | 'Manual',
): Promise<StoredTrigger[]> {
  const { rows } = await db.execute(
    triggerRows(installationId, sql`t.state = 'active' AND t.type = ${type} AND NOT t.is_system`),
  );
  return rows.map(parse);
}

/** The records a value may name, by type. */
const TABLES: Record<string, AuditedTable> = {
  ticketstatuses: ticketStatuses,
  ticketpriorities: ticketPriorities,
  tickettypes: ticketTypes,
  ticketsources: ticketSources,
  inboxes,
  users,
  customers,
  tags,
  companies,
  webhookendpoints: webhookEndpoints,
  customfields: customFields,
};

export interface Problem {
  source: string;
  detail: string;
  /** it names a record that is not there (any more): the trigger is incomplete */
  missing?: boolean;
}

/** An id as a value's text: digits, within what an id column holds (a larger number would fail the look-up, not name nothing). */
const ID = { test: (text: string) => /^[1-9]\d{0,9}$/.test(text) && Number(text) <= MAX_ID };

/** The ids a value names, one or several joined with commas; undefined when it is anything else. */
export function idsOfValue(value: string): number[] | undefined {
  const parts = value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  return parts.length > 0 && parts.every((part) => ID.test(part)) ? parts.map(Number) : undefined;
}

/** Whether every id names a live record of the type in the installation. */
export async function allThere(
  db: Pick<Transaction, 'select'>,
  installationId: number,
  type: string,
  ids: number[],
): Promise<boolean> {
  if (ids.length === 0) return true;
  const table = TABLES[type]!;
  const found = await db
    .select({ id: table.id })
    .from(table as PgTable)
    .where(and(tenantScope(table, installationId), inArray(table.id, ids)));
  return new Set(found.map((row) => Number(row.id))).size === new Set(ids).size;
}

async function isCollaborator(tx: Transaction, installationId: number, userId: number): Promise<boolean> {
  const { rows } = await tx.execute(
    sql`SELECT 1 FROM users WHERE id = ${userId} AND installation_id = ${installationId} AND role = 'collaborator'`,
  );
  return rows.length > 0;
}

/**
 * What a trigger's problems look up, each answer deciding whether a problem found there is one:
 * `missing` when the records named are not all there, else `collaborator` (if given) when the user
 * named is a collaborator. Answered in the transaction (`problemsOf`) or as conditions of a
 * batch's statements (`problemsAsChecks`).
 */
interface Lookups {
  unlessThere(
    type: string,
    ids: number[],
    missing: Problem,
    collaborator?: { userId: number; problem: Problem },
  ): Promise<Check[]>;
}

/** A problem, and the condition under which it is one (none: it is one). */
export type Check = Problem & { when?: SQL };

/** Whether the records are all live in the installation, as SQL. */
export function thereCondition(installationId: number, type: string, ids: number[]): SQL {
  const table = TABLES[type]!;
  return sql`(SELECT count(*) FROM ${table} WHERE ${and(tenantScope(table, installationId), inArray(table.id, ids))}) = ${new Set(ids).size}`;
}

/**
 * `problemsOf` for a write sent as one batch: the trigger's problems, in order, those that hang
 * on what it names with the condition under which they are (`when`), for statements of the
 * batch; no round trip of its own.
 */
export function problemsAsChecks(installationId: number, trigger: StoredTrigger): Promise<Check[]> {
  return problemsWith(
    {
      unlessThere: async (type, ids, missing, collaborator) => {
        if (ids.length === 0) return [];
        const there = thereCondition(installationId, type, ids);
        const collaborates =
          collaborator &&
          sql`EXISTS (SELECT 1 FROM users WHERE id = ${collaborator.userId} AND installation_id = ${installationId} AND role = 'collaborator')`;
        return [
          { ...missing, when: sql`NOT (${there})` },
          ...(collaborator ? [{ ...collaborator.problem, when: sql`(${there}) AND ${collaborates}` }] : []),
        ];
      },
    },
    trigger,
  );
}

/**
 * A trigger's entries that a batch makes have no id before it: in the trigger as it will be
 * written (`problemsAsChecks`) the nth new condition or action is -n, and a detail naming it
 * (`condition -1 (...)`) names its id in the batch, the nth of the trigger's live entries of its
 * kind that `known` (those live before) does not hold, inserted in order.
 */
const PLACEHOLDER = /^(condition|action) -(\d+) /;

function newEntryId(kind: string, n: number, triggerId: SQL, known: readonly number[]): SQL {
  const table = kind === 'condition' ? triggerConditions : triggerActions;
  return sql`(SELECT ${table.id} FROM ${table} WHERE ${table.triggerId} = ${triggerId} AND ${table.state} = 'active' AND NOT ${table.id} IN ${intList(known)} ORDER BY ${table.id} OFFSET ${n - 1} LIMIT 1)`;
}

/** Whether the problem names an entry a batch makes (its id is known only there). */
export const namesNewEntry = (problem: Problem) => PLACEHOLDER.test(problem.detail);

/** A statement of a batch refusing with the check's 400 when it holds, a new entry it names by its id in the batch. */
export function refusalStatement(
  check: Check,
  triggerId: SQL,
  known: { condition: readonly number[]; action: readonly number[] },
): SQL {
  const when = check.when ?? sql`true`;
  const placeholder = PLACEHOLDER.exec(check.detail);
  if (!placeholder) return refuseWhen(when, 400, check.source, check.detail);
  const kind = placeholder[1]!;
  const id = newEntryId(kind, Number(placeholder[2]), triggerId, kind === 'condition' ? known.condition : known.action);
  const detail = sql`${`${kind} `}::text || ${id}::text || ${check.detail.slice(placeholder[0].length - 1)}::text`;
  return sql`SELECT desk_refuse(400, ${check.source}::text, ${detail}) WHERE ${when}`;
}

const kindOf = (value: ValueKind, field: number) =>
  field === FIELD.tag ? 'tags' : typeof value === 'object' ? 'id' : value;

/**
 * What is wrong with a trigger's conditions and actions, the first first: an operator its field
 * does not take, a value of the wrong form, a record named that is not there, an action without
 * what it needs. Empty: it can run.
 */
export function problemsOf(tx: Transaction, installationId: number, trigger: StoredTrigger): Promise<Problem[]> {
  return problemsWith(
    {
      unlessThere: async (type, ids, missing, collaborator) => {
        if (!(await allThere(tx, installationId, type, ids))) return [missing];
        return collaborator && (await isCollaborator(tx, installationId, collaborator.userId))
          ? [collaborator.problem]
          : [];
      },
    },
    trigger,
  );
}

async function problemsWith(lookups: Lookups, trigger: StoredTrigger): Promise<Check[]> {
  const problems: Check[] = [];
  for (const condition of trigger.conditions) {
    const field = CONDITION_FIELDS[condition.field as keyof typeof CONDITION_FIELDS];
    const source = 'trigger.conditions';
    const at = `condition ${condition.id} (${field?.name ?? condition.field} ${OPERATORS[condition.operator as keyof typeof OPERATORS] ?? condition.operator})`;
    if (!field) {
      problems.push({ source, detail: `${at}: not a known field` });
      continue;
    }
    const kind = kindOf(field.value, condition.field);
    if (!OPERATORS_OF[kind]!.includes(condition.operator)) {
      problems.push({
        source,
        detail: `${at}: the operator does not fit the field; it takes ${OPERATORS_OF[kind]!.map((op) => `${op} (${OPERATORS[op as keyof typeof OPERATORS]})`).join(', ')}`,
      });
      continue;
    }
    const empty = condition.operator === OPERATOR.isEmpty || condition.operator === OPERATOR.isNotEmpty;
    if (kind === 'hours' && !/^\d{1,6}(\.\d{1,2})?$/.test(condition.value))
      problems.push({ source, detail: `${at}: the value must be a number of hours` });
    if ((kind === 'id' || kind === 'tags') && !empty) {
      if (!ID.test(condition.value)) problems.push({ source, detail: `${at}: the value must be an id` });
      else
        problems.push(
          ...(await lookups.unlessThere((field.value as { id: string }).id, [Number(condition.value)], {
            source,
            detail: `${at}: no ${(field.value as { id: string }).id} ${condition.value} here`,
            missing: true,
          })),
        );
    }
    if (kind === 'customfield') {
      let named: { id?: unknown; value?: unknown } | undefined;
      try {
        named = JSON.parse(condition.value) as typeof named;
      } catch {
        named = undefined;
      }
      if (!named || typeof named.id !== 'number' || (!empty && typeof named.value !== 'string'))
        problems.push({
          source,
          detail: `${at}: the value must be JSON: {"id": <custom field id>, "value": "<text or option id>"}`,
        });
      else
        problems.push(
          ...(await lookups.unlessThere('customfields', [named.id], {
            source,
            detail: `${at}: no customfields ${named.id} here`,
            missing: true,
          })),
        );
    }
    if (kind === 'text' && !empty && condition.value === '')
      problems.push({ source, detail: `${at}: the value must not be empty (operator 7 asks for an empty one)` });
  }
  for (const action of trigger.actions) {
    const known = ACTIONS[action.type as keyof typeof ACTIONS];
    const source = 'trigger.triggeractions';
    const at = `action ${action.id} (${known?.name ?? action.type})`;
    if (!known) {
      problems.push({ source, detail: `${at}: not a known action` });
      continue;
    }
    const value = known.value;
    if (value === 'message') {
      if (action.message.trim() === '') problems.push({ source, detail: `${at}: needs its \`message\`` });
    } else if ('ids' in value) {
      const ids = idsOfValue(action.value);
      if (!ids) problems.push({ source, detail: `${at}: the value must be ids joined with commas` });
      else
        problems.push(
          ...(await lookups.unlessThere(value.ids, ids, {
            source,
            detail: `${at}: some of ${value.ids} ${action.value} are not here`,
            missing: true,
          })),
        );
    } else if (!(action.type === ACTION.assignAgent && action.value === '')) {
      if (!ID.test(action.value)) problems.push({ source, detail: `${at}: the value must be an id` });
      else {
        const collaborator = {
          userId: Number(action.value),
          problem: {
            source,
            detail: `${at}: user ${action.value} is a collaborator: a ticket is assigned to an owner, admin or agent`,
          },
        };
        problems.push(
          ...(await lookups.unlessThere(
            value.id,
            [Number(action.value)],
            { source, detail: `${at}: no ${value.id} ${action.value} here`, missing: true },
            action.type === ACTION.assignAgent ? collaborator : undefined,
          )),
        );
      }
    }
  }
  if (trigger.type === 'Automatic' && !trigger.isSystem && trigger.actions.length === 0)
    problems.push({ source: 'trigger.triggeractions', detail: 'an automatic trigger needs at least one action' });
  return problems;
}
