import { z } from 'zod';
import { ADMINS, EVERYONE } from '../../auth/access';
import { appFeatures } from '../../db/schema';
import { callerUsers } from '../apps/caller-users';
import { refProperty } from '../../engine';
import { defineResource } from '../../engine';

/** The features apps bring, read-only catalogue data: installing an app gives an installation its features. */
export const appFeaturesResource = defineResource({
  type: 'appfeatures',
  singular: 'appfeature',
  title: { one: 'AppFeature', many: 'AppFeatures' },
  table: appFeatures,
  tenancy: 'global',
  fields: {
    app: {
      column: appFeatures.appId,
      schema: z.number().int(),
      readOnly: true,
      output: refProperty(appFeatures.appId, 'apps', false),
    },
    name: { column: appFeatures.name, schema: z.string() },
    description: { column: appFeatures.description, schema: z.string() },
    defaultValue: { column: appFeatures.defaultValue, schema: z.string().nullable() },
  },
  filter: ['id', 'name'],
  relations: { users: callerUsers() },
  access: { read: EVERYONE, write: ADMINS },
  operations: ['list', 'get'],
});
