import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Principal } from '../../auth/principal';
import { appFeatureInstallations, appFeatures, appInstallations } from '../../db/schema';
import { deleteStatement, type Writer } from '../../engine';
import { withEvents } from '../../events/record-events';
import { stateChangeRoute } from './install';

/** Marks the app uninstalled (if it is installed) and soft-deletes its feature installations; setting values stay. */
function uninstall(db: Writer, who: Principal, appId: number): SQL[] {
  const changed = db
    .update(appInstallations)
    .set({ status: 'uninstalled', uninstalledAt: sql`now()`, updatedAt: sql`now()`, updatedBy: who.userId })
    .where(
      and(
        eq(appInstallations.installationId, who.installationId),
        eq(appInstallations.appId, appId),
        eq(appInstallations.status, 'installed'),
      ),
    )
    .returning({ id: appInstallations.id })
    .getSQL();
  const features = db.select({ id: appFeatures.id }).from(appFeatures).where(eq(appFeatures.appId, appId));
  const live = and(
    eq(appFeatureInstallations.installationId, who.installationId),
    eq(appFeatureInstallations.state, 'active'),
    inArray(appFeatureInstallations.appfeatureId, features),
  )!;
  return [
    withEvents(changed, who, 'apps', 'uninstalled', undefined, sql`${appId}::int`),
    deleteStatement(
      db,
      who,
      { table: appFeatureInstallations, type: 'appfeaturesinstallations', where: live },
      { app: appId },
    ),
  ];
}

/** `POST /v2/apps/{id}/uninstall.json` */
export const uninstallAppRoute = stateChangeRoute(
  'uninstall',
  uninstall,
  "Uninstall an app from the caller's installation (idempotent); its setting values are kept",
);
