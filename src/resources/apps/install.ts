import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../app-env';
import { ADMINS, requireRole } from '../../auth/access';
import type { Principal } from '../../auth/principal';
import type { Queryable, Transaction } from '../../db/client';
import { appFeatureInstallations, appFeatures, appInstallations, apps } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { addRoute, pathParam } from '../../http/route';
import { errorBodySchema } from '../../openapi/schemas';
import { deletedValues } from '../engine/columns';
import { compiled } from '../engine/compiled';
import { parseIncludes } from '../engine/list-params';
import { selectOne } from '../engine/queries';
import { oneRecordBody } from '../engine/read';
import { appsResource } from './apps.resource';

/** 404 unless the app is in the catalogue. */
async function requireApp(db: Pick<Transaction, 'select'>, id: number, source = 'id'): Promise<void> {
  const found = await db.select({ id: apps.id }).from(apps).where(and(eq(apps.id, id), eq(apps.state, 'active')));
  if (found.length === 0) throw ApiError.notFound(source, `app ${id} not found`);
}

/**
 * Marks the app installed (unless it already is: then nothing changes) and gives the
 * installation each of the app's features it does not have yet, valued at the feature's
 * default. Setting values kept from an earlier installation apply again.
 */
async function install(tx: Transaction, who: Principal, appId: number): Promise<void> {
  await tx
    .insert(appInstallations)
    .values({ installationId: who.installationId, appId, status: 'installed', installedAt: sql`now()`, createdBy: who.userId, updatedBy: who.userId })
    .onConflictDoUpdate({
      target: [appInstallations.installationId, appInstallations.appId],
      set: { status: 'installed', installedAt: sql`now()`, uninstalledAt: null, state: 'active', updatedAt: sql`now()`, updatedBy: who.userId },
      setWhere: sql`${appInstallations.status} <> 'installed' OR ${appInstallations.state} <> 'active'`,
    });
  // ON CONFLICT DO NOTHING: a concurrent install may have created the same live row.
  await tx.execute(sql`
    INSERT INTO ${appFeatureInstallations} (installation_id, appfeature_id, value, created_by, updated_by)
    SELECT ${who.installationId}, ${appFeatures.id}, ${appFeatures.defaultValue}, ${who.userId}, ${who.userId}
    FROM ${appFeatures}
    WHERE ${appFeatures.appId} = ${appId} AND ${appFeatures.state} = 'active'
      AND NOT EXISTS (SELECT 1 FROM ${appFeatureInstallations} WHERE ${appFeatureInstallations.installationId} = ${who.installationId}
        AND ${appFeatureInstallations.appfeatureId} = ${appFeatures.id} AND ${appFeatureInstallations.state} = 'active')
    ON CONFLICT DO NOTHING`);
}

/** Marks the app uninstalled (if it is installed) and soft-deletes its feature installations; setting values stay. */
async function uninstall(tx: Transaction, who: Principal, appId: number): Promise<void> {
  await tx
    .update(appInstallations)
    .set({ status: 'uninstalled', uninstalledAt: sql`now()`, updatedAt: sql`now()`, updatedBy: who.userId })
    .where(and(eq(appInstallations.installationId, who.installationId), eq(appInstallations.appId, appId), eq(appInstallations.status, 'installed')));
  const features = tx.select({ id: appFeatures.id }).from(appFeatures).where(eq(appFeatures.appId, appId));
  await tx
    .update(appFeatureInstallations)
    .set(deletedValues(who) as never)
    .where(
      and(
        eq(appFeatureInstallations.installationId, who.installationId),
        eq(appFeatureInstallations.state, 'active'),
        inArray(appFeatureInstallations.appfeatureId, features),
      ),
    );
}

/** Install or uninstall: idempotent, in one transaction, answering the app as the caller now sees it. */
function stateChange(change: typeof install) {
  return async (c: Context<AppEnv>) => {
    const who = c.var.principal;
    requireRole(who, ADMINS);
    const id = pathParam(c, 'id');
    const includes = parseIncludes(c.req.query('includes'), compiled(appsResource).includeNames);
    const body = await c.var.db.transaction(async (tx) => {
      await requireApp(tx, id);
      await change(tx, who, id);
      const result = await selectOne(tx as unknown as Queryable, appsResource, id, { who, includes });
      return oneRecordBody(appsResource, result!);
    });
    return c.json(body);
  };
}

const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, { description: 'error', schema: errorBodySchema }]));

/** `POST /v2/apps/{id}/install.json` and `.../uninstall.json`. Any request body is ignored. */
export function installRoutes(app: Hono<AppEnv>): void {
  const appBody = z.object({ app: compiled(appsResource).schemas.record, included: z.record(z.string(), z.array(z.unknown())) });
  const includes = {
    name: 'includes',
    description: `comma list of: ${[...compiled(appsResource).includeNames, 'all'].join(', ')}`,
    schema: { type: 'string' },
  };
  const routes = [
    ['install', install, "Install an app in the caller's installation (idempotent)"],
    ['uninstall', uninstall, "Uninstall an app from the caller's installation (idempotent); its setting values are kept"],
  ] as const;
  for (const [action, change, summary] of routes) {
    addRoute(
      app,
      {
        method: 'post',
        path: `/v2/apps/{id}/${action}.json`,
        tag: 'apps',
        summary,
        query: [includes],
        responses: { 200: { description: 'the app', schema: appBody }, ...errors(400, 401, 403, 404) },
      },
      stateChange(change),
    );
  }
}
