import { and, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import { refuseWhen } from '../../db/refusal';
import { z } from 'zod';
import { MATCH_REQUIREMENTS, triggerActions, triggerConditions } from '../../db/schema';
import {
  hasManyFields,
  literal,
  planOf,
  referenceInput,
  refSchema,
  typed,
  withPlan,
  type Relation,
  type WritableField,
} from '../../engine';
import { ApiError } from '../../http/errors';
import { displayOrderField } from '../../lib/vocabulary-fields';
import { ACTIONS, CONDITION_FIELDS, OPERATORS } from './trigger-codes';
import { allThere, idsOfValue, thereCondition } from './trigger-rules';

/**
 * A trigger's conditions and actions as the platform's client writes them (under
 * `included.conditions` / `included.triggeractions`, or in the record): the list sent back is the
 * list, each entry keeping its id, and an action's payload typed (`"tags": [{"id": 3}]`,
 * `"user": {"id": 7}`) beside the `value` form, both read back.
 */

const code = <T extends Record<number, unknown>>(codes: T, what: string) =>
  z
    .number()
    .int()
    .refine((n) => n in codes, `not a known ${what} code (docs/resources/triggers.md)`)
    .meta({ description: `a ${what} code: ${Object.keys(codes).join(', ')}` });

export const conditionFields = {
  field: { column: triggerConditions.field, schema: code(CONDITION_FIELDS, 'condition field'), required: true },
  operator: { column: triggerConditions.operator, schema: code(OPERATORS, 'operator'), required: true },
  value: {
    column: triggerConditions.value,
    schema: z.string().max(1000).meta({ description: 'an id, text, or hours, as the field takes' }),
  },
  matchRequirement: {
    column: triggerConditions.matchRequirement,
    schema: z
      .enum(MATCH_REQUIREMENTS)
      .meta({ description: 'ALL (default): every ALL condition must hold; ANY: at least one ANY condition must' }),
  },
} satisfies Record<string, WritableField>;

type ActionCode = keyof typeof ACTIONS;
const actionOf = (type: unknown) => ACTIONS[type as ActionCode] as (typeof ACTIONS)[ActionCode] | undefined;
const payloadOf = (type: unknown): string | undefined => {
  const action = actionOf(type);
  return action && 'payload' in action ? action.payload : undefined;
};

/** Each typed payload property: the record type it names, whether a list of them, and the actions that take it. */
const PAYLOADS: Record<string, { type: string; many: boolean; codes: number[] }> = {};
for (const [type, action] of Object.entries(ACTIONS)) {
  if (!('payload' in action)) continue;
  const target = 'ids' in action.value ? action.value.ids : action.value.id;
  (PAYLOADS[action.payload] ??= { type: target, many: 'ids' in action.value, codes: [] }).codes.push(Number(type));
}

/**
 * A payload property: written into the action's `value` (`{"id": 7}` as "7", a list as "3,4",
 * null as "", which unassigns for action 4), read back from it, filled for the actions that take
 * it and null for the others.
 */
function payloadField({ type, many, codes }: (typeof PAYLOADS)[string]): WritableField {
  const of = sql.raw(codes.join(', '));
  const { type: code, value } = triggerActions;
  const ref = referenceInput(type);
  const schema = many
    ? z
        .array(ref)
        .max(100)
        .nullable()
        .transform((ids) => (ids ?? []).join(','))
    : ref.nullable().transform((id) => (id === null ? '' : String(id)));
  const output = many
    ? typed(
        sql`CASE WHEN ${code} IN (${of}) THEN (SELECT json_agg(json_build_object('id', btrim(part)::bigint, 'type', ${literal(type)}) ORDER BY n)
          FROM unnest(string_to_array(${value}, ',')) WITH ORDINALITY AS parts(part, n) WHERE btrim(part) SIMILAR TO '[0-9]{1,10}') END`,
        z.array(refSchema(type)).nullable(),
      )
    : typed(
        sql`CASE WHEN ${code} IN (${of}) AND ${value} SIMILAR TO '[0-9]{1,10}' THEN json_build_object('id', ${value}::bigint, 'type', ${literal(type)}) END`,
        refSchema(type).nullable(),
      );
  const takes = codes.map((c) => `${c} (${ACTIONS[c as ActionCode].name})`).join(', ');
  return {
    column: value,
    schema: schema.meta({
      description: `what action ${takes} names, as the platform's client writes it; null for other actions`,
    }),
    output,
  };
}

export const actionFields = {
  // the action's own `type`: what it does
  type: {
    column: triggerActions.type,
    schema: z.union([code(ACTIONS, 'action'), z.literal('triggeractions').transform(() => undefined)]),
    required: true,
  },
  value: {
    column: triggerActions.value,
    schema: z
      .string()
      .max(1000)
      .meta({ description: 'what the action sets or names: an id, or ids joined with commas (or its typed property)' }),
  },
  ...Object.fromEntries(Object.entries(PAYLOADS).map(([name, payload]) => [name, payloadField(payload)])),
  message: {
    column: triggerActions.message,
    schema: z.string().max(20_000).meta({
      description:
        'the text of a note or a reply; a reply may use {{ticket.id}}, {{ticket.subject}}, {{customer.firstName}}, {{customer.lastName}}, {{customer.email}}',
    }),
  },
  displayOrder: displayOrderField(triggerActions.displayOrder),
} satisfies Record<string, WritableField>;

type Entry = Record<string, unknown> & { id?: number; delete?: boolean; meta?: { delete?: boolean } | null };
type Tx = Parameters<NonNullable<Relation['write']>>[0];
const isDeletion = (entry: Entry) => entry.delete === true || entry.meta?.delete === true;

/** What an action's payload names, to be live in the caller's installation: `entries[index][property]`. */
interface PayloadLookup {
  index: number;
  property: string;
  target: string;
  ids: number[];
  value: string;
}

/**
 * An action's typed payload held to its action: a payload of another action is refused unless
 * empty (the platform's client sends `"priority": null` beside an action 4's `user`, and it is
 * ignored); the action's own payload counts over a `value` sent beside it. An entry with an id and
 * no `type` keeps its stored one (`before`). Answers what a new or changed action names, which
 * must be live in the caller's installation (a 400 naming the property).
 */
function holdPayload(
  entry: Entry,
  index: number,
  before: Record<string, unknown> | undefined,
  source: string,
): PayloadLookup | undefined {
  if (isDeletion(entry)) return undefined;
  const type = entry.type ?? before?.type;
  const own = payloadOf(type);
  for (const name of Object.keys(PAYLOADS)) {
    if (entry[name] === undefined || name === own) continue;
    if (entry[name] === '') delete entry[name];
    else if (type !== undefined)
      throw ApiError.invalid(
        `${source}[${index}].${name}`,
        `action ${String(type)} (${actionOf(type)?.name ?? 'unknown'}) takes ${own ? `\`${own}\`` : 'its `message`'}, not \`${name}\``,
      );
  }
  const property = own !== undefined && entry[own] !== undefined ? own : 'value';
  if (property === own) delete entry.value;
  const value = entry[property];
  const action = actionOf(type);
  if (
    typeof value !== 'string' ||
    !action ||
    action.value === 'message' ||
    (before && before.value === value && before.type === type)
  )
    return undefined;
  const ids = idsOfValue(value);
  if (!ids || ids.length === 0) return undefined;
  return { index, property, target: 'ids' in action.value ? action.value.ids : action.value.id, ids, value };
}

const payloadRefusal = ({ index, property, target, value }: PayloadLookup, source: string) =>
  ApiError.invalid(`${source}[${index}].${property}`, `not every one of ${target} ${value} is here`);

/** `holdPayload` for each entry, in the transaction. */
async function holdPayloads(
  tx: Tx,
  installationId: number,
  parentId: number,
  entries: Entry[],
  source: string,
): Promise<void> {
  const stored = new Map(
    (
      await tx
        .select({ id: triggerActions.id, type: triggerActions.type, value: triggerActions.value })
        .from(triggerActions)
        .where(and(eq(triggerActions.triggerId, parentId), eq(triggerActions.state, 'active')))
    ).map((row) => [row.id, row]),
  );
  for (const [index, entry] of entries.entries()) {
    const lookup = holdPayload(entry, index, entry.id === undefined ? undefined : stored.get(entry.id), source);
    if (lookup && !(await allThere(tx, installationId, lookup.target, lookup.ids)))
      throw payloadRefusal(lookup, source);
  }
}

/** A live entry as `storedTrigger` reads it: its properties by their column keys. */
type StoredEntry = { id: number } & Record<string, unknown>;

/** The list as the whole-list write makes it of what was sent, given the live entries: kept ones sent unchanged as bare references, live ones left out removed. */
function asWritten(
  entries: Entry[],
  live: Map<number, Record<string, unknown>>,
  unchanged: (entry: Entry, stored: Record<string, unknown>) => boolean,
): Entry[] {
  const named = new Set(entries.map((entry) => entry.id));
  const sent = entries.map((entry) => {
    const stored = entry.id === undefined ? undefined : live.get(entry.id);
    return stored && !isDeletion(entry) && unchanged(entry, stored) ? { id: entry.id } : entry;
  });
  const left = [...live.keys()].filter((id) => !named.has(id)).map((id) => ({ id, delete: true }));
  return [...sent, ...left];
}

/** A list `resolve` made for a batch: the entries for `hasMany`'s plan, and the checks of what its actions name, before them. */
const resolutions = new WeakMap<object, { entries: Entry[]; checks: SQL[] }>();

/** A whole list resolved against the stored entries, for a write sent as one batch. */
export interface ResolvedList {
  /** the value for the body (the resolved list, which the relation's plan writes; the value sent when it changes nothing) */
  value: unknown;
  /** the live entries once written, new ones with the ids -1, -2, ... in the order they are inserted (`refusalStatement`) */
  written: StoredEntry[];
  /** whether the list changes anything */
  writes: boolean;
}

/** The defaults of a new entry's columns (the table's). */
const DEFAULTS: Record<string, Record<string, unknown>> = {
  conditions: { value: '', matchRequirement: 'ALL' },
  triggeractions: { value: '', message: '', displayOrder: 0 },
};

export type WholeListRelation = Relation & {
  /** The list sent as the interactive `write` makes it, given the live entries `before` read (none: a new trigger); the relation's plan then writes `value`. */
  resolve(installationId: number, stored: readonly StoredEntry[], value: unknown, source: string): ResolvedList;
};

/**
 * The list sent replaces the list, as the platform's client sends it back whole: entries with
 * their id are kept (and changed as sent; one sent as it is touches nothing, not even its
 * `updatedAt`), entries without are new, and the live ones it leaves out are removed. An empty
 * list, or none, changes nothing. An id that is not one of this trigger's live entries is a 400
 * naming it (`hasMany`). Written interactively (`write`), or as statements of a batch once
 * `resolve`d against the entries read before it (its plan: what the actions name checked in it).
 */
function wholeList(
  table: typeof triggerConditions | typeof triggerActions,
  fields: Record<string, WritableField>,
  payloads: boolean,
): WholeListRelation {
  const type = table === triggerActions ? 'triggeractions' : 'conditions';
  const relation = hasManyFields({
    type,
    component: table === triggerActions ? 'TriggerAction' : 'TriggerCondition',
    table,
    parentKey: table.triggerId,
    fields,
  });
  const generic = relation.write!;
  const genericPlan = planOf(relation)!;
  const keyOf = new Map(Object.entries(getTableColumns(table)).map(([key, column]) => [column as unknown, key]));
  const unchanged = (entry: Entry, stored: Record<string, unknown>) =>
    Object.entries(fields).every(
      ([name, field]) => entry[name] === undefined || entry[name] === stored[keyOf.get(field.column)!],
    );
  const write: NonNullable<Relation['write']> = async (tx, who, parent, value, source) => {
    if (!Array.isArray(value) || value.length === 0) return;
    const entries = value as Entry[];
    if (payloads) await holdPayloads(tx, who.installationId, parent.id, entries, source);
    const live = new Map(
      (
        await tx
          .select()
          .from(table)
          .where(and(eq(table.triggerId, parent.id), eq(table.state, 'active')))
      ).map((row) => [row.id, row as Record<string, unknown>]),
    );
    await generic(tx, who, parent, asWritten(entries, live, unchanged), source);
  };
  return {
    ...relation,
    write: withPlan(write, (db, who, parent, value, source, creating) => {
      if (!Array.isArray(value) || value.length === 0) return [];
      const resolved = resolutions.get(value);
      // a list not resolved against the stored entries: the interactive write reads them
      if (!resolved) return undefined;
      const statements = genericPlan(db, who, parent, resolved.entries, source, creating);
      return statements && [...resolved.checks, ...statements];
    }),
    resolve(installationId, stored, value, source) {
      if (!Array.isArray(value) || value.length === 0) return { value, written: [...stored], writes: false };
      // each entry the body's own copy: holding the payloads amends them
      const entries = (value as Entry[]).map((entry) => ({ ...entry }));
      const live = new Map<number, StoredEntry>(stored.map((entry) => [entry.id, entry]));
      const checks = payloads
        ? entries.flatMap((entry, index) => {
            const lookup = holdPayload(entry, index, entry.id === undefined ? undefined : live.get(entry.id), source);
            if (!lookup) return [];
            const refusal = payloadRefusal(lookup, source).errors[0]!;
            return [
              refuseWhen(
                sql`NOT ${thereCondition(installationId, lookup.target, lookup.ids)}`,
                400,
                refusal.source!,
                refusal.detail,
              ),
            ];
          })
        : [];
      const list = asWritten(entries, live, unchanged);
      resolutions.set(list, { entries: list, checks });
      // the entries as the plan leaves them: changed in order, removed, new ones last in the order they are inserted
      const written = new Map<number, StoredEntry>(stored.map((entry) => [entry.id, { ...entry }]));
      let fresh = 0;
      const made: StoredEntry[] = [];
      for (const entry of list) {
        const values = Object.fromEntries(
          Object.entries(fields).flatMap(([name, field]) =>
            entry[name] === undefined ? [] : [[keyOf.get(field.column)!, entry[name]]],
          ),
        );
        if (entry.id === undefined) made.push({ ...DEFAULTS[type], ...values, id: -++fresh });
        else if (isDeletion(entry)) written.delete(entry.id);
        else if (written.has(entry.id)) Object.assign(written.get(entry.id)!, values);
      }
      return { value: list, written: [...written.values(), ...made], writes: true };
    },
  };
}

export const conditionsRelation = wholeList(triggerConditions, conditionFields, false);
export const actionsRelation = wholeList(triggerActions, actionFields, true);
