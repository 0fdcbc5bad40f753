import { and, eq, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { ADMINS, EVERYONE } from '../../auth/access';
import type { Actor } from '../../auth/principal';
import { CUSTOM_FIELD_KINDS, customFieldInboxes, customFieldOptions, customFields } from '../../db/schema';
import { AUDIT_SET, defineResource, hasMany, manyToMany, shapeOf, type WriteContext } from '../../engine';
import { ApiError } from '../../http/errors';
import { displayOrderField } from '../../lib/vocabulary-fields';
import { inboxShape } from '../inboxes/inbox-shape';
import { includedUsers } from '../users/user-shape';
import { customFieldOptionsResource, optionKindCheck, requireOptionKind } from './customfieldoptions.resource';

const label = z.string().trim().min(1).max(255);

const kindFixed = (kind: string) => `a field's kind cannot change (it is ${kind}): make a new field`;

/** A field's kind is what its values are: it does not change once the field exists. */
async function keepKind(
  { tx, who }: WriteContext,
  record: Record<string, unknown>,
  id: number | undefined,
): Promise<void> {
  if (id === undefined || record.kind === undefined) return;
  const [stored] = await tx
    .select({ kind: customFields.kind })
    .from(customFields)
    .where(and(eq(customFields.id, id), eq(customFields.installationId, who.installationId)));
  if (stored && stored.kind !== record.kind) throw ApiError.invalid('customfield.kind', kindFixed(stored.kind));
}

/** `keepKind` as a statement of a batch (one round trip). */
function keepKindCheck(who: Actor, record: Record<string, unknown>, id: number | undefined): SQL[] {
  if (id === undefined || record.kind === undefined) return [];
  return [
    sql`SELECT desk_refuse(400, 'customfield.kind', format(${kindFixed('%s')}::text, f.kind)) FROM ${customFields} f
    WHERE f.id = ${id}::int AND f.installation_id = ${who.installationId} AND f.kind <> ${record.kind as string}`,
  ];
}

/** Only dropdown and checkboxes fields have options. */
async function optionsFitKind({ tx }: WriteContext, _record: Record<string, unknown>, id: number): Promise<void> {
  const { rows } = await tx.execute(sql`
    SELECT f.kind FROM ${customFields} f
     WHERE f.id = ${id} AND EXISTS (SELECT 1 FROM ${customFieldOptions} o WHERE o.custom_field_id = f.id AND o.state = 'active')`);
  if (rows[0]) requireOptionKind(String(rows[0].kind), 'customfield.options');
}

/** `optionsFitKind` as a statement of a batch, the field's id as SQL. */
const optionsFitKindCheck = (id: SQL) =>
  optionKindCheck(
    id,
    'customfield.options',
    sql`EXISTS (SELECT 1 FROM ${customFieldOptions} o WHERE o.custom_field_id = f.id AND o.state = 'active')`,
  );

/**
 * Ticket fields of the team's own (`/v2/customfields.json`): labels for teammates and for
 * customers, a kind, required flags, limited to some inboxes (none: every inbox), options for
 * dropdowns and checkboxes (`options`, also `/v2/customfieldoptions.json`). Admins write.
 */
export const customFieldsResource = defineResource({
  type: 'customfields',
  singular: 'customfield',
  title: { one: 'CustomField', many: 'CustomFields' },
  table: customFields,
  fields: {
    agentLabel: { column: customFields.agentLabel, schema: label, required: true },
    customerLabel: { column: customFields.customerLabel, schema: z.string().trim().max(255) },
    kind: {
      column: customFields.kind,
      schema: z.enum(CUSTOM_FIELD_KINDS).meta({ description: 'what the values are; fixed once the field exists' }),
      required: true,
    },
    description: { column: customFields.description, schema: z.string().max(2000) },
    agentRequired: {
      column: customFields.agentRequired,
      schema: z.boolean().meta({ description: 'a ticket cannot be solved or closed without a value' }),
    },
    customerRequired: { column: customFields.customerRequired, schema: z.boolean() },
    enabled: { column: customFields.enabled, schema: z.boolean() },
    addToNewInboxes: {
      column: customFields.addToNewInboxes,
      schema: z
        .boolean()
        .meta({ description: 'inboxes made later join `inboxes` (a field limited to none applies in every inbox)' }),
    },
    displayOrder: displayOrderField(customFields.displayOrder),
  },
  filter: [
    ...AUDIT_SET,
    'addToNewInboxes',
    'agentLabel',
    'agentRequired',
    'customerLabel',
    'customerRequired',
    'displayOrder',
    'enabled',
    'kind',
  ],
  relations: {
    inboxes: manyToMany({
      name: 'inboxes',
      target: inboxShape,
      through: customFieldInboxes,
      parentKey: customFieldInboxes.customFieldId,
      targetKey: customFieldInboxes.inboxId,
    }),
    options: hasMany({
      shape: shapeOf(customFieldOptionsResource),
      parentKey: customFieldOptions.customFieldId,
      fields: {
        name: customFieldOptionsResource.fields.name!,
        displayOrder: customFieldOptionsResource.fields.displayOrder!,
      },
    }),
    users: includedUsers(),
  },
  includeAliases: { customfieldoptions: 'options' },
  constraints: {
    custom_fields_installation_label_key: {
      source: 'customfield.agentLabel',
      detail: 'a field with this label already exists',
    },
    custom_field_options_field_name_key: {
      source: 'customfield.options',
      detail: 'two options of the field have the same name',
    },
  },
  access: { read: EVERYONE, write: ADMINS },
  examples: {
    create: {
      agentLabel: 'Delivery',
      customerLabel: 'How was it delivered?',
      kind: 'dropdown',
      options: [{ name: 'Standard' }, { name: 'Express' }],
    },
    update: { description: 'As the order confirmation says' },
  },
  operations: ['list', 'get', 'create', 'update', 'delete'],
  beforeWrite: keepKind,
  afterWrite: optionsFitKind,
  planned: {
    before: () => true,
    first: (_db, who, record, id) => keepKindCheck(who, record, id),
    after: (_db, _who, _record, id) => [optionsFitKindCheck(id)],
  },
});
