import { and, sql, type SQL } from 'drizzle-orm';
import { containsPattern, intList } from '../../db/sql-values';
import { z } from 'zod';
import type { Queryable } from '../../db/client';
import { tickets } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { isCalendarDay } from '../../lib/time-values';

/**
 * Tickets by their custom field values: the `customfields` parameter of the ticket list and of
 * search, one JSON array in the platform's form,
 * `[{"id": 12, "value": "gold", "operation": "contains"}, {"id": 13, "values": [14, 15]}]`.
 * Each entry is a condition on one field; all of them must hold.
 */

const MAX_ENTRIES = 20;
const MAX_VALUES = 100;

/** The operations, by kind of field; `equals` when none is named. */
const OPERATIONS = [
  'equals',
  'notEquals',
  'contains',
  'notContains',
  'lt',
  'lte',
  'gt',
  'gte',
  'isEmpty',
  'isNotEmpty',
] as const;
type Operation = (typeof OPERATIONS)[number];
const ALIASES: Record<string, Operation> = {
  eq: 'equals',
  is: 'equals',
  ne: 'notEquals',
  isnot: 'notEquals',
  not: 'notEquals',
};
const BY_KIND: Record<string, readonly Operation[]> = {
  text: ['equals', 'notEquals', 'contains', 'notContains', 'isEmpty', 'isNotEmpty'],
  textarea: ['equals', 'notEquals', 'contains', 'notContains', 'isEmpty', 'isNotEmpty'],
  number: ['equals', 'notEquals', 'lt', 'lte', 'gt', 'gte', 'isEmpty', 'isNotEmpty'],
  date: ['equals', 'notEquals', 'lt', 'lte', 'gt', 'gte', 'isEmpty', 'isNotEmpty'],
  dropdown: ['equals', 'notEquals', 'isEmpty', 'isNotEmpty'],
  checkboxes: ['equals', 'notEquals', 'contains', 'notContains', 'isEmpty', 'isNotEmpty'],
};

export const customFieldsParam = z.string().max(20_000).optional().meta({
  description:
    'tickets by custom field values: a JSON array of `{"id", "value", "operation"}` (operation `equals` (default), `notEquals`, `contains`, `notContains`, `lt`, `lte`, `gt`, `gte`, `isEmpty`, `isNotEmpty`, as the field\'s kind allows) or `{"id", "values": [option ids]}` (any of them); all must hold',
  // an operation every kind of field takes
  example: '[{"id": 12, "operation": "isNotEmpty"}]',
});

/** One condition, as read from the parameter. */
export interface CustomFieldCriterion {
  id: number;
  value?: string;
  values?: number[];
  operation: Operation;
}

const isId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 2_147_483_647;

/** Reads the parameter (undefined or '' is none); what is not the platform's form is a 400 naming the entry. */
export function parseCustomFieldCriteria(
  raw: string | undefined,
  source = 'customfields',
): CustomFieldCriterion[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw ApiError.invalid(source, 'must be a JSON array');
  }
  if (!Array.isArray(parsed)) throw ApiError.invalid(source, 'must be a JSON array');
  if (parsed.length > MAX_ENTRIES) throw ApiError.invalid(source, `at most ${MAX_ENTRIES} conditions`);
  return parsed.map((entry: unknown, i) => {
    const at = `${source}[${i}]`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
      throw ApiError.invalid(at, 'must be an object: {"id", "value", "operation"} or {"id", "values"}');
    const { id, value, values, operation, ...rest } = entry as Record<string, unknown>;
    const unknown = Object.keys(rest)[0];
    if (unknown !== undefined)
      throw ApiError.invalid(`${at}.${unknown}`, 'unknown property; allowed: id, value, values, operation');
    if (!isId(id)) throw ApiError.invalid(`${at}.id`, 'must be a custom field id');
    const named =
      operation === undefined || operation === ''
        ? 'equals'
        : typeof operation === 'string'
          ? (ALIASES[operation.toLowerCase()] ?? OPERATIONS.find((op) => op.toLowerCase() === operation.toLowerCase()))
          : undefined;
    if (named === undefined)
      throw ApiError.invalid(`${at}.operation`, `unknown operation; allowed: ${OPERATIONS.join(', ')}`);
    const criterion: CustomFieldCriterion = { id, operation: named };
    if (values !== undefined && values !== null) {
      if (value !== undefined && value !== null && value !== '')
        throw ApiError.invalid(`${at}.values`, 'give `value` or `values`, not both');
      if (!Array.isArray(values) || values.length === 0 || values.length > MAX_VALUES || !values.every(isId))
        throw ApiError.invalid(`${at}.values`, `must be 1 to ${MAX_VALUES} option ids`);
      if (operation !== undefined && operation !== '')
        throw ApiError.invalid(`${at}.operation`, '`values` matches any of the options: it takes no operation');
      criterion.values = [...new Set(values)];
      return criterion;
    }
    const empties = named === 'isEmpty' || named === 'isNotEmpty';
    if (typeof value === 'number' && Number.isFinite(value)) criterion.value = String(value);
    else if (typeof value === 'string' && !value.includes('\0') && value.length <= 1000) criterion.value = value;
    else if (!empties || (value !== undefined && value !== null))
      throw ApiError.invalid(`${at}.value`, empties ? 'takes no value' : 'must be text or a number (or give `values`)');
    if (empties && criterion.value !== undefined) throw ApiError.invalid(`${at}.value`, `${named} takes no value`);
    if (!empties && criterion.value?.trim() === '')
      throw ApiError.invalid(`${at}.value`, 'must not be empty: `isEmpty` asks for tickets without a value');
    return criterion;
  });
}

const COMPARE: Partial<Record<Operation, SQL>> = { lt: sql`<`, lte: sql`<=`, gt: sql`>`, gte: sql`>=`, equals: sql`=` };

/** The positive condition of an entry on the value row `v` of a field of `kind`, and whether the entry negates it. */
function valueCondition(
  kind: string,
  options: number[],
  c: CustomFieldCriterion,
  at: string,
): { condition: SQL; negated: boolean } {
  const negated = c.operation === 'notEquals' || c.operation === 'notContains' || c.operation === 'isEmpty';
  if (c.operation === 'isEmpty' || c.operation === 'isNotEmpty') return { condition: sql`true`, negated };
  const optionKind = kind === 'dropdown' || kind === 'checkboxes';
  if (c.values) {
    if (!optionKind) throw ApiError.invalid(`${at}.values`, `a ${kind} field has no options: give \`value\``);
    const foreign = c.values.find((id) => !options.includes(id));
    if (foreign !== undefined)
      throw ApiError.invalid(`${at}.values`, `${foreign} is not an option of custom field ${c.id}`);
    const any = sql`${JSON.stringify(c.values)}::jsonb`;
    // an array contains a scalar it holds: a dropdown's option, or any checked one
    return {
      condition:
        kind === 'dropdown'
          ? sql`${any} @> v.value`
          : sql`EXISTS (SELECT 1 FROM jsonb_array_elements(v.value) e WHERE ${any} @> e)`,
      negated: false,
    };
  }
  if (!BY_KIND[kind]?.includes(c.operation))
    throw ApiError.invalid(`${at}.operation`, `a ${kind} field takes ${BY_KIND[kind]?.join(', ') ?? 'no operation'}`);
  const value = c.value!;
  const positive = c.operation === 'notEquals' ? 'equals' : c.operation === 'notContains' ? 'contains' : c.operation;
  switch (kind) {
    case 'text':
    case 'textarea':
      return {
        condition:
          positive === 'contains'
            ? sql`(v.value #>> '{}') ILIKE ${containsPattern(value)}`
            : sql`lower(v.value #>> '{}') = lower(${value})`,
        negated,
      };
    case 'number': {
      if (!/^-?\d{1,15}(\.\d{1,10})?$/.test(value.trim()))
        throw ApiError.invalid(`${at}.value`, `"${value}" is not a number`);
      return { condition: sql`(v.value #>> '{}')::numeric ${COMPARE[positive]!} ${value.trim()}::numeric`, negated };
    }
    case 'date': {
      if (!isCalendarDay(value)) throw ApiError.invalid(`${at}.value`, `"${value}" is not a day (YYYY-MM-DD)`);
      return { condition: sql`(v.value #>> '{}')::date ${COMPARE[positive]!} ${value}::date`, negated };
    }
    default: {
      // dropdown and checkboxes: one option id (`contains` on checkboxes: that one is checked)
      const id = /^[1-9]\d{0,9}$/.test(value) ? Number(value) : NaN;
      if (!options.includes(id))
        throw ApiError.invalid(
          `${at}.value`,
          `"${value}" is not an option of custom field ${c.id} (give an option id)`,
        );
      const one = sql`${JSON.stringify(kind === 'checkboxes' && positive === 'equals' ? [id] : id)}::jsonb`;
      return { condition: positive === 'contains' ? sql`v.value @> ${one}` : sql`v.value = ${one}`, negated };
    }
  }
}

/**
 * The tickets the criteria select, as one condition over `tickets`: each entry an `EXISTS` over the
 * ticket's value of its field (negations: `NOT EXISTS`, so a ticket without a value is "not
 * equal"). The fields are looked up in the caller's installation; another's, a deleted one, or a
 * value its kind cannot hold is a 400 naming the entry.
 */
export async function customFieldsCondition(
  db: Queryable,
  installationId: number,
  criteria: CustomFieldCriterion[] | undefined,
  source = 'customfields',
): Promise<SQL | undefined> {
  if (!criteria?.length) return undefined;
  const ids = [...new Set(criteria.map((c) => c.id))];
  const { rows } = await db.execute(sql`
    SELECT f.id, f.kind, coalesce((SELECT json_agg(o.id) FROM custom_field_options o WHERE o.custom_field_id = f.id AND o.state = 'active'), '[]') AS options
      FROM custom_fields f WHERE f.installation_id = ${installationId} AND f.state = 'active' AND f.id IN ${intList(ids)}`);
  const fields = new Map(
    rows.map((row) => [Number(row.id), { kind: String(row.kind), options: (row.options as unknown[]).map(Number) }]),
  );
  const conditions = criteria.map((c, i) => {
    const at = `${source}[${i}]`;
    const field = fields.get(c.id);
    if (!field) throw ApiError.invalid(`${at}.id`, `no customfields ${c.id} here`);
    const { condition, negated } = valueCondition(field.kind, field.options, c, at);
    const exists = sql`EXISTS (SELECT 1 FROM ticket_custom_field_values v WHERE v.ticket_id = ${tickets.id} AND v.custom_field_id = ${c.id}::int AND ${condition})`;
    return negated ? sql`NOT ${exists}` : exists;
  });
  return and(...conditions);
}
