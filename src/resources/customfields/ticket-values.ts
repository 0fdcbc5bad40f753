import { sql, type SQL } from 'drizzle-orm';
import { intList } from '../../db/sql-values';
import { z } from 'zod';
import { customFieldInboxes, customFields, ticketCustomFieldValues } from '../../db/schema';
import { manyToMany, shapeOf, type WriteContext } from '../../engine';
import { ApiError } from '../../http/errors';
import { idValue } from '../../http/params';
import { isCalendarDay } from '../../lib/time-values';
import { customFieldsResource } from './customfields.resource';

/** The longest value of a text field, and of a textarea. */
const MAX_TEXT = 1_000;
const MAX_TEXTAREA = 20_000;
const MAX_CHECKED = 100;

/** What `meta.value` may be on the wire; each field's kind then narrows it (`normalValue`). */
const valueSchema = z
  .union([
    z.string().max(MAX_TEXTAREA),
    z.number(),
    z.array(z.union([idValue, z.string().max(12)])).max(MAX_CHECKED),
    z.null(),
  ])
  .meta({
    description:
      'the ticket\'s value: text for text and textarea, a number, a day `YYYY-MM-DD`, an option id (dropdown), an array of option ids (checkboxes); null, "" or [] clears it',
  });

/**
 * A ticket's values of the team's custom fields: `customfields: [{"id": 12, "meta": {"value": ...}}]`
 * sets them (one `linked` event of the ticket a value set or changed), `{"id": 12, "meta": {"delete": true}}`
 * or a null value clears one, fields not named keep theirs. `includes=customfields` reads them,
 * with the fields' definitions in `included.customfields`. Each value is checked against its
 * field first (`prepareCustomFieldValues`).
 */
export const customFieldValues = manyToMany({
  name: 'customfields',
  target: shapeOf(customFieldsResource),
  through: ticketCustomFieldValues,
  parentKey: ticketCustomFieldValues.ticketId,
  targetKey: ticketCustomFieldValues.customFieldId,
  linkFields: { value: { column: ticketCustomFieldValues.value, schema: valueSchema, default: '', json: true } },
});

type ValueEntry = {
  id: number;
  delete?: boolean;
  meta?: ({ delete?: boolean; value?: unknown } & Record<string, unknown>) | null;
};

interface FieldFacts {
  kind: string;
  enabled: boolean;
  applies: boolean;
  /** the ticket has a value of it */
  held: boolean;
  options: number[];
}

/** A field applies in an inbox when it is limited to none, or to that one among others. */
const appliesIn = (field: SQL, inbox: SQL) =>
  sql`(NOT EXISTS (SELECT 1 FROM ${customFieldInboxes} i WHERE i.custom_field_id = ${field})
    OR EXISTS (SELECT 1 FROM ${customFieldInboxes} i WHERE i.custom_field_id = ${field} AND i.inbox_id = ${inbox}))`;

/** What runs a statement: a transaction, or the handle's HTTP side (a read before a batch). */
type Reader = Pick<WriteContext['tx'], 'execute'>;

/**
 * The installation's live fields among `ids`, with what a value of each must be in the ticket's
 * inbox and whether the ticket holds a value of it; with the inbox (the ticket's own when the
 * write names none). One statement.
 */
async function fieldFacts(
  db: Reader,
  who: WriteContext['who'],
  ids: number[],
  ticket: { id?: number; inboxId?: number },
): Promise<{ fields: Map<number, FieldFacts>; inboxId: number | undefined }> {
  const inbox =
    ticket.inboxId !== undefined
      ? sql`${ticket.inboxId}::int`
      : sql`(SELECT t.inbox_id FROM tickets t WHERE t.id = ${ticket.id ?? 0}::int AND t.installation_id = ${who.installationId})`;
  const { rows } = await db.execute(sql`
    SELECT ${inbox} AS inbox, coalesce((SELECT json_agg(json_build_object('id', f.id, 'kind', f.kind, 'enabled', f.enabled, 'applies', ${appliesIn(sql`f.id`, inbox)},
        'held', ${ticket.id === undefined ? sql`false` : sql`EXISTS (SELECT 1 FROM ${ticketCustomFieldValues} v WHERE v.ticket_id = ${ticket.id}::int AND v.custom_field_id = f.id)`},
        'options', coalesce((SELECT json_agg(o.id) FROM custom_field_options o WHERE o.custom_field_id = f.id AND o.state = 'active'), '[]')))
      FROM ${customFields} f WHERE f.installation_id = ${who.installationId} AND f.state = 'active' AND f.id IN ${intList(ids)}), '[]') AS fields`);
  const found = rows[0]!.fields as Array<FieldFacts & { id: number }>;
  const fields = new Map(found.map((field) => [Number(field.id), { ...field, options: field.options.map(Number) }]));
  return { fields, inboxId: rows[0]!.inbox == null ? undefined : Number(rows[0]!.inbox) };
}

/** An option id as a client may send it: a number, or its digits. */
function optionId(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  if (typeof value === 'string' && /^[1-9]\d{0,9}$/.test(value)) return Number(value);
  return undefined;
}

/** A number as a client may send it: a JSON number, or a decimal in a string. */
function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^-?\d{1,15}(\.\d{1,10})?$/.test(value.trim())) return Number(value.trim());
  return undefined;
}

/** Whether a value clears the field: null, an empty string, no options checked. */
const clears = (value: unknown) => value === null || value === '' || (Array.isArray(value) && value.length === 0);

/** The value as stored for a field of this kind, or why it is not one. */
function normalValue(field: FieldFacts, value: unknown): { value: unknown } | { error: string } {
  const text = (max: number) => {
    if (typeof value !== 'string') return { error: 'must be text' };
    if (value.includes('\0')) return { error: 'must not contain NUL characters' };
    return value.length > max ? { error: `must be at most ${max} characters` } : { value };
  };
  const option = (candidate: unknown) => {
    const id = optionId(candidate);
    return id !== undefined && field.options.includes(id) ? id : undefined;
  };
  switch (field.kind) {
    case 'text':
      return text(MAX_TEXT);
    case 'textarea':
      return text(MAX_TEXTAREA);
    case 'number': {
      const number = numberOf(value);
      return number === undefined ? { error: `"${String(value)}" is not a number` } : { value: number };
    }
    case 'date':
      return typeof value === 'string' && isCalendarDay(value)
        ? { value }
        : { error: `"${String(value)}" is not a day (YYYY-MM-DD)` };
    case 'dropdown': {
      const id = option(value);
      return id === undefined
        ? { error: `"${String(value)}" is not an option of this field (give an option id of its \`options\`)` }
        : { value: id };
    }
    case 'checkboxes': {
      const named = Array.isArray(value) ? value : [value];
      const ids = named.map(option);
      const bad = ids.findIndex((id) => id === undefined);
      if (bad >= 0)
        return { error: `"${String(named[bad])}" is not an option of this field (give option ids of its \`options\`)` };
      return { value: [...new Set(ids as number[])].sort((a, b) => a - b) };
    }
    default:
      return { error: `a ${field.kind} field takes no values` };
  }
}

const isDeletion = (entry: ValueEntry) => entry.delete === true || entry.meta?.delete === true;

/**
 * Checks the `customfields` a ticket write sends against their fields (live in the installation,
 * switched on, applying in the ticket's inbox, a value of the field's kind) and answers the entries
 * to write: values in their stored form, a cleared value of a field with one turned into its
 * removal (and of a field without one, dropped). `source` names the property (`ticket.customfields`).
 * One statement: in the write's transaction, or before its batch (`db.http`).
 */
export async function prepareCustomFieldValues(
  db: Reader,
  who: WriteContext['who'],
  entries: ValueEntry[] | null,
  ticket: { id?: number; inboxId?: number },
  source: string,
): Promise<ValueEntry[] | null> {
  if (entries === null || entries.length === 0) return entries;
  const { fields, inboxId } = await fieldFacts(db, who, [...new Set(entries.map((e) => e.id))], ticket);
  // a ticket not there (or not the caller's): the write answers 404
  if (inboxId === undefined) return [];
  const written: ValueEntry[] = [];
  entries.forEach((entry, index) => {
    const at = `${source}[${index}]`;
    const field = fields.get(entry.id);
    if (!field) throw ApiError.invalid(`${at}.id`, `no customfields ${entry.id} here`);
    if (entries.findIndex((e) => e.id === entry.id) < index)
      throw ApiError.invalid(`${at}.id`, `names custom field ${entry.id} again: give each field once`);
    const value = entry.meta?.value;
    if (isDeletion(entry) || clears(value)) {
      if (field.held) written.push({ id: entry.id, meta: { delete: true } });
      return;
    }
    if (value === undefined) throw ApiError.invalid(at, 'give the value as `meta.value` (null clears it)');
    if (!field.enabled)
      throw ApiError.invalid(at, `custom field ${entry.id} is switched off (enabled: false): it takes no values`);
    if (!field.applies)
      throw ApiError.invalid(
        at,
        `custom field ${entry.id} is not used in inbox ${inboxId} (see the field's \`inboxes\`)`,
      );
    const normal = normalValue(field, value);
    if ('error' in normal) throw ApiError.invalid(at, `${field.kind} field ${entry.id}: ${normal.error}`);
    written.push({ id: entry.id, meta: { value: normal.value } });
  });
  return written;
}

/** The statuses that need every agent-required field filled. */
const RESOLVED_CODES = sql`('solved', 'closed')`;

/**
 * A ticket is solved or closed only with a value in every agent-required field that is switched on
 * and applies in its inbox. Run after a write moved `ticketIds` to a new status: those now at a
 * solved or closed one are checked, and the first missing value is a 400 naming its field.
 */
export async function requireFieldsToResolve(
  { tx, who }: WriteContext,
  ticketIds: readonly number[],
  source: string,
): Promise<void> {
  if (ticketIds.length === 0) return;
  const { rows } = await tx.execute(missingRequiredField(who, sql`t.id IN ${intList(ticketIds)}`));
  const missing = rows[0];
  if (missing) {
    throw ApiError.invalid(
      source,
      `custom field ${String(missing.field)} ("${String(missing.label)}") is required: give ticket ${String(missing.ticket)} a value of it before it is solved or closed`,
    );
  }
}

/**
 * `requireFieldsToResolve` as a check of a batch, over the tickets `t` for which `where` holds: a
 * 400 naming `source`, or as a trigger's run is refused (`status` 409, its detail after `prefix`).
 */
export function requireFieldsToResolveStatement(
  who: WriteContext['who'],
  where: SQL,
  source: string,
  { status = 400, prefix = '' } = {},
): SQL {
  return sql`SELECT desk_refuse(${status}::int, ${source}::text, ${prefix}::text || format('custom field %s ("%s") is required: give ticket %s a value of it before it is solved or closed', x.field, x.label, x.ticket))
    FROM (${missingRequiredField(who, where)}) x`;
}

/** The first agent-required field without a value among the tickets `t` for which `where` holds, that are solved or closed. */
function missingRequiredField(who: WriteContext['who'], where: SQL): SQL {
  return sql`
    SELECT t.id AS ticket, f.id AS field, f.agent_label AS label
      FROM tickets t
      JOIN ticket_statuses s ON s.id = t.status_id AND s.code IN ${RESOLVED_CODES}
      JOIN ${customFields} f ON f.installation_id = t.installation_id AND f.state = 'active' AND f.enabled AND f.agent_required
     WHERE t.installation_id = ${who.installationId} AND ${where}
       AND ${appliesIn(sql`f.id`, sql`t.inbox_id`)}
       AND NOT EXISTS (SELECT 1 FROM ${ticketCustomFieldValues} v WHERE v.ticket_id = t.id AND v.custom_field_id = f.id)
     ORDER BY t.id, f.display_order, f.id LIMIT 1`;
}
