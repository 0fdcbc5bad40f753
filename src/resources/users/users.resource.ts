import { sql } from 'drizzle-orm';
import { EVERYONE } from '../../auth/access';
import { users } from '../../db/schema';
import { AUDIT_SET, defineResource } from '../../engine';
import {
  checkTeammateDelete,
  checkTeammateWrite,
  forgetTeammate,
  planTeammateWrite,
  teammateDeleteChecks,
  teammateWriteChecks,
} from './teammate-rules';
import { includedUsers, userComputed, userFields } from './user-shape';

/**
 * Teammates. Every teammate reads them and writes their own profile; who may add, change roles
 * and deactivate is `teammate-rules.ts`'s. A delete deactivates: the teammate's keys stop working.
 */
export const usersResource = defineResource({
  type: 'users',
  singular: 'user',
  title: { one: 'User', many: 'Users' },
  table: users,
  fields: userFields,
  computed: userComputed,
  filter: [
    ...AUDIT_SET,
    'autoFollowOnCC',
    'editMethod',
    'email',
    'firstName',
    'isAppOwner',
    'isPartTime',
    'lastName',
    'reviewer',
    'role',
    'timeFormatId',
    'timezoneId',
  ],
  orderByExtra: { name: sql`lower(${users.firstName} || ' ' || ${users.lastName})` },
  relations: { users: includedUsers() },
  // what the platform's client may send back from what it read
  ignored: ['ticketReplyRedirect', 'trainingWheelsEnrollment', 'projectsCompanyId', 'ldKey'],
  constraints: {
    users_installation_email_key: { source: 'user.email', detail: 'a teammate with this email already exists' },
    users_timezone_id_timezones_id_fk: {
      source: 'user.timezoneId',
      detail: 'must be a time zone of /v2/timezones.json',
    },
  },
  access: { read: EVERYONE, write: EVERYONE },
  examples: {
    create: { email: 'ada@acme-support.example', firstName: 'Ada', lastName: 'Lovelace', role: 'agent' },
    update: { isPartTime: true },
  },
  operations: ['list', 'get', 'create', 'update', 'delete'],
  beforeWrite: checkTeammateWrite,
  planned: {
    before: (who, record, id) => planTeammateWrite(who, record, id),
    first: (_db, who, record, id) => teammateWriteChecks(who, record, id),
    beforeDelete: (who, id) => teammateDeleteChecks(who, id),
  },
  afterCommit(id, record) {
    if (record === undefined || record.role !== undefined) forgetTeammate(id);
  },
  beforeDelete: checkTeammateDelete,
});
