import { and, eq, sql } from 'drizzle-orm';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../app-env';
import { ADMINS, requireRole } from '../../auth/access';
import type { Principal } from '../../auth/principal';
import type { Database } from '../../db/client';
import { appInstallations, apps, appSettingDefinitions as definitions, appSettingValues as values } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { addRoute, pathParam } from '../../http/route';
import { errorBodySchema } from '../../openapi/schemas';
import { readJson, unwrapRecord, validate } from '../engine/body';
import { finishRecord } from '../engine/record-json';
import { settingJson, settingRecordSchema, settingsOf } from './app-settings';
import { settingBodySchema } from './setting-value';

const installedHere = (who: Principal, appId: number) =>
  sql`EXISTS (SELECT 1 FROM ${appInstallations} WHERE ${appInstallations.installationId} = ${who.installationId}
    AND ${appInstallations.appId} = ${appId} AND ${appInstallations.status} = 'installed' AND ${appInstallations.state} = 'active')`;

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
  if (found.settingId === null || found.settingType === null) throw ApiError.notFound('id', `app ${appId} has no setting ${id}`);
  return { ...found, settingType: found.settingType };
}

/** Stores the installation's value (null: back to the default), only while the app is installed here. */
async function storeValue(db: Database['http'], who: Principal, appId: number, id: number, value: unknown): Promise<boolean> {
  const json = value === null ? null : JSON.stringify(value);
  const { rows } = await db.execute(sql`
    INSERT INTO ${values} (installation_id, app_id, setting_id, value, created_by, updated_by)
    SELECT ${who.installationId}, ${appId}, ${id}, ${json}::jsonb, ${who.userId}, ${who.userId}
    WHERE ${installedHere(who, appId)}
    ON CONFLICT (installation_id, setting_id) DO UPDATE SET value = excluded.value, state = 'active', deleted_at = NULL,
      deleted_by = NULL, updated_at = now(), updated_by = excluded.updated_by
    RETURNING id`);
  return rows.length > 0;
}

async function readSetting(db: Database['http'], who: Principal, id: number) {
  const { rows } = await db.execute(sql`SELECT ${settingJson()} AS setting FROM ${settingsOf(who)} WHERE ${definitions.id} = ${id}`);
  return finishRecord(rows[0]!.setting as Record<string, unknown>);
}

const notInstalled = (appId: number) =>
  ApiError.conflict('appId', `app ${appId} is not installed in this installation; install it first (POST /v2/apps/${appId}/install.json)`);

async function updateSetting(c: Context<AppEnv>) {
  const who = c.var.principal;
  requireRole(who, ADMINS);
  const appId = pathParam(c, 'appId');
  const id = pathParam(c, 'id');
  const record = unwrapRecord(await readJson(c), 'appsetting');
  const setting = await findSetting(c.var.db.http, who, appId, id);
  const { value } = validate(settingBodySchema(setting), record, 'appsetting');
  // A secret reads back as null with isSet true: that record sent back as it was read leaves
  // the secret alone rather than erasing it. Any other null clears it.
  const sentBackAsRead = setting.settingType === 'secret' && value === null && record.isSet === true;
  if (!sentBackAsRead && value === null && setting.required && setting.defaultValue === null) {
    throw ApiError.invalid('appsetting.value', 'this setting is required and has no default, so it cannot be reset to null');
  }
  if (!setting.installed) throw notInstalled(appId);
  if (!sentBackAsRead && !(await storeValue(c.var.db.http, who, appId, id, value))) throw notInstalled(appId);
  return c.json({ appsetting: await readSetting(c.var.db.http, who, id), included: {} });
}

/** `PUT /v2/apps/{appId}/settings/{id}.json` (the spec writes `:appId` and `:id`). */
export function updateSettingRoute(app: Hono<AppEnv>): void {
  const value = z.union([z.string(), z.number(), z.boolean()]).nullable();
  addRoute(
    app,
    {
      method: 'put',
      path: '/v2/apps/{appId}/settings/{id}.json',
      tag: 'apps',
      summary: "Change one setting of an installed app for the caller's installation (null: back to the default)",
      body: {
        schema: z
          .object({ appsetting: z.strictObject({ value: value.describe("of the setting's type: string, number, boolean, one of a select's options, or a secret string") }) })
          .describe('also accepted bare: {"value": ...}'),
        required: true,
      },
      responses: {
        200: { description: 'the setting', schema: z.object({ appsetting: settingRecordSchema, included: z.record(z.string(), z.array(z.unknown())) }) },
        ...Object.fromEntries([400, 401, 403, 404, 409, 413, 415].map((status) => [status, { description: 'error', schema: errorBodySchema }])),
      },
    },
    updateSetting,
  );
}
