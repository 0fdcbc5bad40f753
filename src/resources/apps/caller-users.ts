import { sql, type SQL } from 'drizzle-orm';
import type { Actor } from '../../auth/principal';
import { users } from '../../db/schema';
import type { Relation } from '../../engine';
import { recordJson, recordSchema } from '../../engine';
import type { AuditedTable } from '../../engine';
import { userShape } from '../users/user-shape';

/**
 * `includes=users` for catalogue records (apps, app features): the users a record names, and
 * those `more` names (a subquery of user ids). A catalogue row is shared by every installation,
 * so only users of the caller's own installation are ever included.
 */
export function callerUsers(more?: (parent: AuditedTable, who: Actor) => SQL): Relation {
  return {
    type: 'users',
    schema: recordSchema(userShape),
    cardinality: 'none',
    dependsOnCaller: true,
    recordsJson(parent, who) {
      const own = sql`${users.id} IN (${parent.createdBy}, ${parent.updatedBy}, ${parent.deletedBy})`;
      const named = more ? sql`(${own} OR ${users.id} IN (${more(parent, who)}))` : own;
      return sql`(SELECT coalesce(json_agg(${recordJson(userShape)} ORDER BY ${users.id}), '[]'::json)
        FROM ${users} WHERE ${users.installationId} = ${who.installationId} AND ${named})`;
    },
  };
}
