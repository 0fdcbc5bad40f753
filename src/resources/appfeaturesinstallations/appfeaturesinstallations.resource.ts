import { z } from 'zod';
import { ADMINS, EVERYONE } from '../../auth/access';
import { appFeatureInstallations } from '../../db/schema';
import { AUDIT_SET, defineResource } from '../../engine';
import { includedUsers } from '../users/user-shape';

/**
 * The app features the caller's installation has: created when an app is installed, soft-deleted
 * when it is uninstalled (`{"state": "deleted"}` finds those). Read-only.
 */
export const appFeaturesInstallationsResource = defineResource({
  type: 'appfeaturesinstallations',
  singular: 'appfeaturesinstallation',
  title: { one: 'AppFeaturesInstallation', many: 'AppFeaturesInstallations' },
  table: appFeatureInstallations,
  fields: {
    appfeatureId: { column: appFeatureInstallations.appfeatureId, schema: z.number().int() },
    comment: { column: appFeatureInstallations.comment, schema: z.string().nullable() },
    value: { column: appFeatureInstallations.value, schema: z.string().nullable() },
  },
  filter: [...AUDIT_SET, 'appfeatureId', 'comment', 'value'],
  relations: { users: includedUsers() },
  access: { read: EVERYONE, write: ADMINS },
  operations: ['list', 'get'],
});
