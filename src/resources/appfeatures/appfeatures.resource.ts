import { z } from 'zod';
import { ADMINS, EVERYONE } from '../../auth/access';
import { appFeatures } from '../../db/schema';
import { callerUsers } from '../apps/caller-users';
import { refJson } from '../engine/record-json';
import { defineResource } from '../engine/resource';

/** The features apps bring, read-only catalogue data: installing an app gives an installation its features. */
export const appFeaturesResource = defineResource({
  type: 'appfeatures',
  singular: 'appfeature',
  table: appFeatures,
  tenancy: 'global',
  fields: {
    app: { column: appFeatures.appId, schema: z.object({ id: z.number().int(), type: z.literal('apps') }), output: refJson(appFeatures.appId, 'apps') },
    name: { column: appFeatures.name, schema: z.string() },
    description: { column: appFeatures.description, schema: z.string() },
    defaultValue: { column: appFeatures.defaultValue, schema: z.string().nullable() },
  },
  filter: ['id', 'name'],
  relations: { users: callerUsers() },
  access: { read: EVERYONE, write: ADMINS },
  operations: ['list', 'get'],
});
