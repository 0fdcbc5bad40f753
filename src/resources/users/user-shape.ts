import { sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { emailAddress, optionalWebAddress } from '../../lib/field-schemas';
import { EDIT_METHODS, USER_ROLES, users } from '../../db/schema';
import { referencedBy, shapeOfFields, type AuditedTable, type ComputedField, type WritableField } from '../../engine';
import { timeZoneIdSchema } from '../businesshours/time-zone';

/**
 * A teammate's properties, as the platform's user record has them: the users resource's fields,
 * and the shape other records include a teammate with (`includes=users`).
 */
export const userFields: Record<string, WritableField> = {
  email: { column: users.email, schema: emailAddress, required: true },
  firstName: { column: users.firstName, schema: z.string().trim().min(1).max(255), required: true },
  lastName: { column: users.lastName, schema: z.string().trim().max(255) },
  role: {
    column: users.role,
    schema: z
      .enum(USER_ROLES)
      .meta({ description: 'owner, admin, agent or collaborator; who may change it: docs/resources/users.md' }),
  },
  avatarURL: { column: users.avatarUrl, schema: optionalWebAddress },
  editMethod: { column: users.editMethod, schema: z.enum(EDIT_METHODS) },
  isPartTime: { column: users.isPartTime, schema: z.boolean() },
  reviewer: { column: users.reviewer, schema: z.boolean() },
  timezoneId: {
    column: users.timezoneId,
    schema: timeZoneIdSchema.meta({ description: "the teammate's zone's id in /v2/timezones.json (1: UTC)" }),
  },
  timeFormatId: {
    column: users.timeFormatId,
    schema: z.union([z.literal(1), z.literal(2)]).meta({ description: '1: 12-hour clock, 2: 24-hour clock' }),
  },
  sendPushNotifications: { column: users.sendPushNotifications, schema: z.boolean() },
  sendWebNotifications: { column: users.sendWebNotifications, schema: z.boolean() },
  autoFollowOnCC: { column: users.autoFollowOnCC, schema: z.boolean() },
};

export const userComputed: Record<string, ComputedField> = {
  isAppOwner: {
    type: 'boolean',
    schema: z.boolean().meta({ description: 'the teammate owns the installation' }),
    expr: sql`(${users.role} = 'owner')`,
  },
};

/** Teammates as other records include them. */
export const userShape = shapeOfFields({
  type: 'users',
  component: 'User',
  table: users,
  fields: userFields,
  computed: userComputed,
});

/**
 * `includes=users`: the users a record names through its audit references and the given
 * properties of its own (an invite's `user`, an anomaly's `user`).
 */
export function includedUsers(own: (table: AuditedTable) => (PgColumn | undefined)[] = () => []) {
  return referencedBy({
    target: userShape,
    columns: (t) => [t.createdBy, t.updatedBy, t.deletedBy, ...own(t)],
  });
}
