import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { ADMINS, EVERYONE } from '../../auth/access';
import type { Actor } from '../../auth/principal';
import { appInstallations, apps, appSettingValues } from '../../db/schema';
import { isoTime, timeSchema } from '../../engine';
import { defineResource } from '../../engine';
import { appSettingsRelation } from './app-settings';
import { callerUsers } from './caller-users';

/** The caller's installation of the current app row, when it is installed. */
const installedRow = (who: Actor) =>
  sql`FROM ${appInstallations} WHERE ${appInstallations.installationId} = ${who.installationId}
    AND ${appInstallations.appId} = ${apps.id} AND ${appInstallations.status} = 'installed' AND ${appInstallations.state} = 'active'`;

/**
 * The app catalogue, read-only: every installation sees the same apps, each with whether the
 * caller's installation has it. Installing, uninstalling and settings have routes of their own.
 */
export const appsResource = defineResource({
  type: 'apps',
  singular: 'app',
  title: { one: 'App', many: 'Apps' },
  table: apps,
  tenancy: 'global',
  fields: {
    slug: { column: apps.slug, schema: z.string() },
    name: { column: apps.name, schema: z.string() },
    description: { column: apps.description, schema: z.string() },
    developer: { column: apps.developer, schema: z.string() },
    iconUrl: { column: apps.iconUrl, schema: z.string().nullable() },
  },
  computed: {
    installed: {
      type: 'boolean',
      schema: z.boolean().meta({ description: "installed in the caller's installation" }),
      expr: (who) => sql`EXISTS (SELECT 1 ${installedRow(who)})`,
    },
    installedAt: {
      type: 'datetime',
      schema: timeSchema.nullable().meta({ description: 'when it was installed here; null when it is not' }),
      expr: (who) => isoTime(sql`(SELECT ${appInstallations.installedAt} ${installedRow(who)})`),
    },
  },
  // The spec lists no `id` for apps: filtering or ordering by it is a 400.
  filter: ['createdAt', 'createdBy', 'deletedAt', 'deletedBy', 'state', 'updatedAt', 'updatedBy'],
  relations: {
    appsettings: appSettingsRelation,
    // beside the app's own references, whoever last changed one of its settings here
    users: callerUsers(
      (parent, who) =>
        sql`SELECT ${appSettingValues.updatedBy} FROM ${appSettingValues}
        WHERE ${appSettingValues.installationId} = ${who.installationId} AND ${appSettingValues.appId} = ${parent.id} AND ${appSettingValues.state} = 'active'`,
    ),
  },
  access: { read: EVERYONE, write: ADMINS },
  operations: ['list', 'get'],
});
