import { and, eq, sql, type SQL } from 'drizzle-orm';
import { ADMINS, EVERYONE } from '../../auth/access';
import type { Actor } from '../../auth/principal';
import { CUSTOM_FIELD_OPTION_KINDS, customFieldOptions, customFields } from '../../db/schema';
import { refuseWhen } from '../../db/refusal';
import { AUDIT_SET, defineResource, referenceField, type WriteContext } from '../../engine';
import { ApiError } from '../../http/errors';
import { displayOrderField, nameField } from '../../lib/vocabulary-fields';
import { includedUsers } from '../users/user-shape';

const noOptions = (kind: string) => `a ${kind} field has no options: only dropdown and checkboxes fields do`;

/** Refuses options on a field of a kind that has none (`source` names where they were given). */
export function requireOptionKind(kind: string, source: string): void {
  if (!CUSTOM_FIELD_OPTION_KINDS.includes(kind)) throw ApiError.invalid(source, noOptions(kind));
}

/**
 * `requireOptionKind` as a statement of a batch: refuses when the field `field` (SQL, a row of
 * custom_fields as `f`) is of a kind without options and `also` holds.
 */
export function optionKindCheck(field: SQL, source: string, also: SQL = sql`true`): SQL {
  return sql`SELECT desk_refuse(400, ${source}::text, format(${noOptions('%s')}::text, f.kind)) FROM ${customFields} f
    WHERE f.id = ${field} AND f.kind NOT IN (${sql.join(
      CUSTOM_FIELD_OPTION_KINDS.map((kind) => sql`${kind}`),
      sql`, `,
    )}) AND ${also}`;
}

const STAYS = 'an option stays with its field: make one on the other field';

/** An option belongs to a dropdown or checkboxes field of the installation, and stays with it. */
async function requireOptionField(
  { tx, who }: WriteContext,
  record: Record<string, unknown>,
  id: number | undefined,
): Promise<void> {
  if (record.customfield === undefined) return;
  if (id !== undefined) {
    const [stored] = await tx
      .select({ field: customFieldOptions.customFieldId })
      .from(customFieldOptions)
      .where(and(eq(customFieldOptions.id, id), eq(customFieldOptions.installationId, who.installationId)));
    if (stored && stored.field !== record.customfield) throw ApiError.invalid('customfieldoption.customfield', STAYS);
    return;
  }
  const [field] = await tx
    .select({ kind: customFields.kind })
    .from(customFields)
    .where(
      and(
        eq(customFields.id, record.customfield as number),
        eq(customFields.installationId, who.installationId),
        eq(customFields.state, 'active'),
      ),
    );
  if (!field)
    throw ApiError.invalid('customfieldoption.customfield', `no customfields ${String(record.customfield)} here`);
  requireOptionKind(field.kind, 'customfieldoption.customfield');
}

/** `requireOptionField` as statements of a batch (one round trip); the field named on a create is there, as its reference check saw. */
function optionFieldChecks(who: Actor, record: Record<string, unknown>, id: number | undefined): SQL[] {
  if (record.customfield === undefined) return [];
  const field = record.customfield as number;
  if (id === undefined)
    return [
      optionKindCheck(
        sql`${field}::int`,
        'customfieldoption.customfield',
        sql`f.installation_id = ${who.installationId} AND f.state = 'active'`,
      ),
    ];
  const moved = sql`EXISTS (SELECT 1 FROM ${customFieldOptions} WHERE ${and(eq(customFieldOptions.id, id), eq(customFieldOptions.installationId, who.installationId))} AND ${customFieldOptions.customFieldId} <> ${field})`;
  return [refuseWhen(moved, 400, 'customfieldoption.customfield', STAYS)];
}

/** A choice of a dropdown or checkboxes custom field (`/v2/customfieldoptions.json`). Admins write. */
export const customFieldOptionsResource = defineResource({
  type: 'customfieldoptions',
  singular: 'customfieldoption',
  title: { one: 'CustomFieldOption', many: 'CustomFieldOptions' },
  table: customFieldOptions,
  fields: {
    name: nameField(customFieldOptions.name),
    displayOrder: displayOrderField(customFieldOptions.displayOrder),
    customfield: referenceField(
      customFieldOptions.customFieldId,
      { table: customFields, type: 'customfields' },
      { required: true },
    ),
  },
  filter: [...AUDIT_SET, 'customfield', 'displayOrder', 'name'],
  relations: { users: includedUsers() },
  constraints: {
    custom_field_options_field_name_key: {
      source: 'customfieldoption.name',
      detail: 'the field has an option with this name already',
    },
  },
  access: { read: EVERYONE, write: ADMINS },
  examples: {
    create: { customfield: { id: 1 }, name: 'Same day' },
    update: { displayOrder: 2 },
  },
  operations: ['list', 'get', 'create', 'update', 'delete'],
  beforeWrite: requireOptionField,
  planned: { before: () => true, first: (_db, who, record, id) => optionFieldChecks(who, record, id) },
});
