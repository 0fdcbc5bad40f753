import { users } from '../../db/schema';
import type { RecordShape } from '../../engine';
import { referencedBy } from '../../engine';
import type { AuditedTable } from '../../engine';
import type { PgColumn } from 'drizzle-orm/pg-core';

/** Teammates as other resources include them. Their own endpoints come later. */
export const userShape: RecordShape = {
  type: 'users',
  component: 'User',
  table: users,
  properties: {
    firstName: users.firstName,
    lastName: users.lastName,
    email: users.email,
    role: users.role,
  },
};

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
