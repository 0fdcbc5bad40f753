import { sql, type SQL } from 'drizzle-orm';
import { ADMINS } from '../../auth/access';
import type { Principal } from '../../auth/principal';
import { refuseWhen } from '../../db/refusal';
import { appFeatureInstallations, appFeatures, appInstallations, apps } from '../../db/schema';
import { schemasOf, sendWithReadBack, type Writer } from '../../engine';
import { insertEventsFrom, withEvents } from '../../events/record-events';
import { idParams } from '../../http/params';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { appsResource } from './apps.resource';

/** Stops the batch with a 404 unless the app is in the catalogue. */
const appInCatalogue = (id: number): SQL =>
  refuseWhen(
    sql`NOT EXISTS (SELECT 1 FROM ${apps} WHERE ${apps.id} = ${id} AND ${apps.state} = 'active')`,
    404,
    'id',
    `app ${id} not found`,
  );

/**
 * Marks the app installed (unless it already is: then nothing changes) and gives the
 * installation each of the app's features it does not have yet, valued at the feature's
 * default. Setting values kept from an earlier installation apply again. An `installed` event
 * of the app when it was not installed, and a `created` one for each feature installation.
 */
export function install(db: Writer, who: Principal, appId: number): SQL[] {
  const changed = db
    .insert(appInstallations)
    .values({
      installationId: who.installationId,
      appId,
      status: 'installed',
      installedAt: sql`now()`,
      createdBy: who.userId,
      updatedBy: who.userId,
    })
    .onConflictDoUpdate({
      target: [appInstallations.installationId, appInstallations.appId],
      set: {
        status: 'installed',
        installedAt: sql`now()`,
        uninstalledAt: null,
        state: 'active',
        updatedAt: sql`now()`,
        updatedBy: who.userId,
      },
      setWhere: sql`${appInstallations.status} <> 'installed' OR ${appInstallations.state} <> 'active'`,
    })
    .returning({ id: appInstallations.id })
    .getSQL();
  return [
    withEvents(changed, who, 'apps', 'installed', undefined, sql`${appId}::int`),
    // ON CONFLICT DO NOTHING: a concurrent install may have created the same live row.
    sql`
    WITH made AS (
      INSERT INTO ${appFeatureInstallations} (installation_id, appfeature_id, value, created_by, updated_by)
      SELECT ${who.installationId}, ${appFeatures.id}, ${appFeatures.defaultValue}, ${who.userId}, ${who.userId}
      FROM ${appFeatures}
      WHERE ${appFeatures.appId} = ${appId} AND ${appFeatures.state} = 'active'
        AND NOT EXISTS (SELECT 1 FROM ${appFeatureInstallations} WHERE ${appFeatureInstallations.installationId} = ${who.installationId}
          AND ${appFeatureInstallations.appfeatureId} = ${appFeatures.id} AND ${appFeatureInstallations.state} = 'active')
      ON CONFLICT DO NOTHING
      RETURNING id)
    ${insertEventsFrom(sql`made`, who, 'appfeaturesinstallations', 'created', sql`jsonb_build_object('app', ${appId}::int)`)}`,
  ];
}

/** Install or uninstall: idempotent, one batch (the app checked, the change, the app read back), answering the app as the caller now sees it. */
export function stateChangeRoute(action: 'install' | 'uninstall', change: typeof install, summary: string) {
  const s = schemasOf(appsResource);
  return defineRoute(
    {
      method: 'post',
      path: `/v2/apps/{id}/${action}.json`,
      tag: 'Apps',
      operationId: `${action}App`,
      roles: ADMINS,
      summary,
      description: 'Idempotent. Any request body is ignored.',
      request: { params: idParams, query: s.writeQuery },
      example: { params: { id: 3 } },
      responses: { 200: jsonResponse('the app', s.one) },
    },
    async (c) => {
      const who = c.var.principal;
      const { id } = c.req.valid('param');
      const { includes } = c.req.valid('query');
      const body = await sendWithReadBack(
        c.var.db,
        appsResource,
        who,
        [appInCatalogue(id), ...change(c.var.db.http, who, id)],
        sql`${id}::int`,
        includes,
      );
      if (!body) throw new Error(`app ${id} is not there to read back`);
      return c.json(body, 200);
    },
  );
}
