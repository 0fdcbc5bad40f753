import { sql, type SQL } from 'drizzle-orm';
import type { Principal } from '../../auth/principal';
import { users } from '../../db/schema';
import type { Relation } from '../engine/relations';
import { recordJson } from '../engine/record-json';
import type { AuditedTable } from '../engine/resource';
import { userShape } from '../users/user-shape';

/**
 * `includes=users` for catalogue records (apps, app features): the users a record names, and
 * those `more` names (a subquery of user ids). A catalogue row is shared by every installation,
 * so only users of the caller's own installation are ever included.
 */
export function callerUsers(more?: (parent: AuditedTable, who: Principal) => SQL): Relation {
  return {
    type: 'users',
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
