import { and, eq, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { ADMINS } from '../../auth/access';
import type { Principal } from '../../auth/principal';
import type { Database } from '../../db/client';
import { refuseWhen } from '../../db/refusal';
import {
  appInstallations,
  apps,
  appSettingDefinitions as definitions,
  appSettingValues as values,
} from '../../db/schema';
import { finishRecord, type WireRecord } from '../../engine';
import { withEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { integerParam } from '../../http/params';
import { validate } from '../../http/record-body';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { settingJson, settingRecordSchema, settingsOf } from './app-settings';
import { settingUpdateBody, settingValueSchema } from './setting-value';

/** The app's installation here, while installed. */
const installation = (who: Principal, appId: number) =>
  sql`SELECT 1 FROM ${appInstallations} WHERE ${appInstallations.installationId} = ${who.installationId}
    AND ${appInstallations.appId} = ${appId} AND ${appInstallations.status} = 'installed' AND ${appInstallations.state} = 'active'`;

const installedHere = (who: Principal, appId: number) => sql`EXISTS (${installation(who, appId)})`;

/** The app, the setting and whether the app is installed here; 404 for an unknown app or a setting not of that app. */
async function findSetting(db: Database['http'], who: Principal, appId: number, id: number) {
  const [found] = await db
    .select({
      settingId: definitions.id,
      settingType: definitions.settingType,
      options: definitions.options,
      required: definitions.required,
      defaultValue: definitions.defaultValue,
      installed: sql<boolean>`${installedHere(who, appId)}`,
    })
    .from(apps)
    .leftJoin(definitions, and(eq(definitions.appId, apps.id), eq(definitions.id, id), eq(definitions.state, 'active')))
    .where(and(eq(apps.id, appId), eq(apps.state, 'active')));
  if (!found) throw ApiError.notFound('appId', `app ${appId} not found`);
  if (found.settingId === null || found.settingType === null)
    throw ApiError.notFound('id', `app ${appId} has no setting ${id}`);
  return { ...found, settingType: found.settingType };
}

const notInstalledDetail = (appId: number) =>
  `app ${appId} is not installed in this installation; install it first (POST /v2/apps/${appId}/install.json)`;

const notInstalled = (appId: number) => ApiError.conflict('appId', notInstalledDetail(appId));

/**
 * Stores the installation's value (null: back to the default), only while the app is installed
 * here, with a `settingChanged` event of the app (a secret's value is never in it): statements of
 * a batch, the first stopping it with the 409 when the app is not installed (and holding the
 * installation, so an uninstall waits for the value to be stored).
 */
function storeValue(who: Principal, appId: number, id: number, value: unknown, secret: boolean): SQL[] {
  const json = value === null ? null : JSON.stringify(value);
  const data = { setting: id, ...(secret ? {} : { value }) };
  return [
    refuseWhen(sql`NOT EXISTS (${installation(who, appId)} FOR SHARE)`, 409, 'appId', notInstalledDetail(appId)),
    withEvents(
      sql`
    INSERT INTO ${values} (installation_id, app_id, setting_id, value, created_by, updated_by)
    VALUES (${who.installationId}, ${appId}, ${id}, ${json}::jsonb, ${who.userId}, ${who.userId})
    ON CONFLICT (installation_id, setting_id) DO UPDATE SET value = excluded.value, state = 'active', deleted_at = NULL,
      deleted_by = NULL, updated_at = now(), updated_by = excluded.updated_by
    RETURNING id`,
      who,
      'apps',
      'settingChanged',
      sql`${JSON.stringify(data)}::jsonb`,
      sql`${appId}::int`,
    ),
  ];
}

/** The setting as the caller's installation has it: a statement, to run or to send last in the write's batch. */
const settingRead = (who: Principal, id: number): SQL =>
  sql`SELECT ${settingJson()} AS setting FROM ${settingsOf(who)} WHERE ${definitions.id} = ${id}`;

const settingOf = (rows: Record<string, unknown>[]): WireRecord => finishRecord(rows[0]!.setting as WireRecord);

/** `PUT /v2/apps/{appId}/settings/{id}.json` (the spec writes `:appId` and `:id`). */
export const updateAppSettingRoute = defineRoute(
  {
    method: 'put',
    path: '/v2/apps/{appId}/settings/{id}.json',
    tag: 'Apps',
    operationId: 'updateAppSetting',
    roles: ADMINS,
    summary: "Change one setting of an installed app for the caller's installation (null: back to the default)",
    description:
      "Stores the installation's `value` of one of the app's settings, checked against its `settingType` (a wrong type, or a `select` value not among its `options`, is a 400 naming `appsetting.value`); `null` takes it back to its default, except for a required setting without one (400). A secret is never answered, and sending it back as read (`value` null with `isSet` true) leaves it as it is. An unknown app or a setting not of that app is a 404, and an app not installed here a 409. Records a `settingChanged` event of the app, which never holds a secret's value. See docs/resources/apps.md.",
    request: {
      params: z.object({ appId: integerParam('the app'), id: integerParam("the setting's declaration") }),
      body: { required: true, content: { 'application/json': { schema: settingUpdateBody } } },
    },
    // the catalogue's CSAT survey (app 3) waits 48 hours, not 24, before it asks (its setting 9)
    example: { params: { appId: 3, id: 9 }, body: { appsetting: { value: 48 } } },
    responses: {
      200: jsonResponse(
        'the setting',
        z.object({ appsetting: settingRecordSchema, included: z.object({}) }).meta({ id: 'AppSettingBody' }),
      ),
      409: errorResponse('the app is not installed in this installation'),
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { appId, id } = c.req.valid('param');
    const record = c.req.valid('json');
    const setting = await findSetting(c.var.db.http, who, appId, id);
    const { value } = validate(settingValueSchema(setting), { value: record.value }, 'appsetting');
    // A secret reads back as null with isSet true: that record sent back as it was read leaves
    // the secret alone rather than erasing it. Any other null clears it.
    const sentBackAsRead = setting.settingType === 'secret' && value === null && record.isSet === true;
    if (!sentBackAsRead && value === null && setting.required && setting.defaultValue === null) {
      throw ApiError.invalid(
        'appsetting.value',
        'this setting is required and has no default, so it cannot be reset to null',
      );
    }
    if (!setting.installed) throw notInstalled(appId);
    // the setting had to be read first (its type and options decide what the value may be): then one batch, the value stored and read back
    const stored = sentBackAsRead ? [] : storeValue(who, appId, id, value, setting.settingType === 'secret');
    const results = await c.var.db.batch([...stored, settingRead(who, id)]);
    return c.json({ appsetting: settingOf(results.at(-1)!) as z.infer<typeof settingRecordSchema>, included: {} }, 200);
  },
);
