import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { auditColumns, globalAuditColumns } from './audit';

/** The app catalogue, shared by every installation and shipped as seed data. */
export const apps = pgTable('apps', {
  ...globalAuditColumns(),
  slug: text('slug').notNull().unique(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  developer: text('developer').notNull().default(''),
  iconUrl: text('icon_url'),
});

export const APP_SETTING_TYPES = ['string', 'number', 'boolean', 'select', 'secret'] as const;

/** A setting an app declares: its type decides which values it takes. */
export const appSettingDefinitions = pgTable(
  'app_setting_definitions',
  {
    ...globalAuditColumns(),
    appId: integer('app_id')
      .notNull()
      .references(() => apps.id),
    key: text('key').notNull(),
    name: text('name').notNull(),
    settingType: text('setting_type', { enum: APP_SETTING_TYPES }).notNull(),
    /** allowed values of a `select` */
    options: jsonb('options'),
    defaultValue: jsonb('default_value'),
    required: boolean('required').notNull().default(false),
  },
  (t) => [uniqueIndex('app_setting_definitions_app_key').on(t.appId, t.key)],
);

/** A feature an app brings (a sidebar, an AI reply assistant...), also catalogue data. */
export const appFeatures = pgTable('app_features', {
  ...globalAuditColumns(),
  appId: integer('app_id')
    .notNull()
    .references(() => apps.id),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  defaultValue: text('default_value'),
});

export const APP_INSTALLATION_STATUSES = ['installed', 'uninstalled'] as const;

/** Whether an installation has an app, and since when. */
export const appInstallations = pgTable(
  'app_installations',
  {
    ...auditColumns(),
    appId: integer('app_id')
      .notNull()
      .references(() => apps.id),
    status: text('status', { enum: APP_INSTALLATION_STATUSES }).notNull(),
    installedAt: timestamp('installed_at', { withTimezone: true, precision: 3 }),
    uninstalledAt: timestamp('uninstalled_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [uniqueIndex('app_installations_installation_app').on(t.installationId, t.appId)],
);

/** An installation's value of an app setting. */
export const appSettingValues = pgTable(
  'app_setting_values',
  {
    ...auditColumns(),
    appId: integer('app_id')
      .notNull()
      .references(() => apps.id),
    settingId: integer('setting_id')
      .notNull()
      .references(() => appSettingDefinitions.id),
    value: jsonb('value'),
  },
  (t) => [uniqueIndex('app_setting_values_installation_setting').on(t.installationId, t.settingId)],
);

/** An app feature as an installation has it, created when its app is installed. */
export const appFeatureInstallations = pgTable(
  'app_feature_installations',
  {
    ...auditColumns(),
    appfeatureId: integer('appfeature_id')
      .notNull()
      .references(() => appFeatures.id),
    comment: text('comment'),
    value: text('value'),
  },
  (t) => [
    uniqueIndex('app_feature_installations_live')
      .on(t.installationId, t.appfeatureId)
      .where(sql`${t.state} = 'active'`),
    index('app_feature_installations_feature_idx').on(t.appfeatureId),
  ],
);
