import { sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Actor } from '../../auth/principal';
import { appSettingDefinitions as definitions, appSettingValues as values, APP_SETTING_TYPES } from '../../db/schema';
import type { Relation } from '../../engine';
import { isoTime, jsonObject, literal, refJson } from '../../engine';

/**
 * An app's settings as the caller's installation has them (`appsettings`): each declared
 * setting with the installation's value, or the default where it has none. A setting's `id` is
 * its declaration's, the one `PUT /v2/apps/{appId}/settings/{id}.json` takes.
 */

export const SETTING_TYPE = 'appsettings';

/** The declarations joined to the caller's values: what `settingJson` reads from. */
export function settingsOf(who: Actor): SQL {
  return sql`${definitions} LEFT JOIN ${values} ON ${values.settingId} = ${definitions.id}
    AND ${values.installationId} = ${who.installationId} AND ${values.state} = 'active'`;
}

// A value stored as JSON null counts as not set, like SQL NULL.
const stored = sql`nullif(${values.value}, 'null'::jsonb)`;
const secret = sql`${definitions.settingType} = 'secret'`;

/**
 * One setting as a wire record. A secret is never read back: its `value` and `defaultValue`
 * read null, and `isSet` says whether the installation has given one. `updatedAt`/`updatedBy`
 * are those of the installation's value once it has one (who changed the setting last), else
 * the declaration's.
 */
export function settingJson(): SQL {
  return jsonObject({
    id: definitions.id,
    type: literal(SETTING_TYPE),
    app: refJson(definitions.appId, 'apps'),
    key: definitions.key,
    name: definitions.name,
    settingType: definitions.settingType,
    options: definitions.options,
    required: definitions.required,
    defaultValue: sql`CASE WHEN ${secret} THEN NULL ELSE ${definitions.defaultValue} END`,
    value: sql`CASE WHEN ${secret} THEN NULL ELSE coalesce(${stored}, ${definitions.defaultValue}) END`,
    isSet: sql`${stored} IS NOT NULL`,
    state: definitions.state,
    createdAt: definitions.createdAt,
    createdBy: refJson(definitions.createdBy, 'users'),
    updatedAt: isoTime(sql`coalesce(${values.updatedAt}, ${definitions.updatedAt})`),
    updatedBy: refJson(
      sql`CASE WHEN ${values.id} IS NULL THEN ${definitions.updatedBy} ELSE ${values.updatedBy} END`,
      'users',
    ),
  });
}

const settingValue = z.union([z.string(), z.number(), z.boolean()]).nullable();
const reference = z.object({ id: z.number().int(), type: z.string() });

/** The wire record, for the OpenAPI document. */
export const settingRecordSchema = z
  .object({
    id: z.number().int(),
    type: z.literal(SETTING_TYPE),
    app: reference,
    key: z.string(),
    name: z.string(),
    settingType: z.enum(APP_SETTING_TYPES),
    options: z.array(z.string()).nullable().describe('the allowed values of a select'),
    required: z.boolean(),
    defaultValue: settingValue.describe('null for a secret'),
    value: settingValue.describe("the installation's value, or the default; null for a secret"),
    isSet: z.boolean().describe('whether the installation has its own value (for a secret: whether one is stored)'),
    state: z.enum(['active', 'deleted']),
    createdAt: z.iso.datetime(),
    createdBy: reference.nullable(),
    updatedAt: z.iso.datetime(),
    updatedBy: reference.nullable(),
  })
  .meta({ id: 'AppSetting' });

/** `includes=appsettings`: read-only here; a setting changes through its own PUT. */
export const appSettingsRelation: Relation = {
  type: SETTING_TYPE,
  schema: settingRecordSchema,
  cardinality: 'many',
  dependsOnCaller: true,
  recordsJson: (parent, who) =>
    sql`(SELECT coalesce(json_agg(${settingJson()} ORDER BY ${definitions.id}), '[]'::json)
      FROM ${settingsOf(who)} WHERE ${definitions.appId} = ${parent.id} AND ${definitions.state} = 'active')`,
};
