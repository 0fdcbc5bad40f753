import { z } from 'zod';
import { AGENTS, EVERYONE } from '../../auth/access';
import { ANOMALY_STATUSES, anomalies, customers, inboxes, users } from '../../db/schema';
import { referenceField } from '../../engine';
import { AUDIT_SET, defineResource } from '../../engine';
import { includedUsers } from '../users/user-shape';

/**
 * Something unusual the scheduled scan noticed. The scan creates them; clients read them and
 * clear them (`clear-anomaly.route.ts`, `clear-anomalies.route.ts`), so every property is read-only here.
 */
export const anomaliesResource = defineResource({
  type: 'anomalies',
  singular: 'anomaly',
  title: { one: 'Anomaly', many: 'Anomalies' },
  table: anomalies,
  fields: {
    name: { column: anomalies.name, schema: z.string() },
    details: { column: anomalies.details, schema: z.record(z.string(), z.unknown()).nullable() },
    customer: referenceField(anomalies.customerId, { table: customers, type: 'customers' }),
    inbox: referenceField(anomalies.inboxId, { table: inboxes, type: 'inboxes' }),
    user: referenceField(anomalies.userId, { table: users, type: 'users' }),
    detectedAt: { column: anomalies.detectedAt, schema: z.iso.datetime() },
    status: { column: anomalies.status, schema: z.enum(ANOMALY_STATUSES) },
    clearedAt: { column: anomalies.clearedAt, schema: z.iso.datetime().nullable() },
    clearedBy: referenceField(anomalies.clearedBy, { table: users, type: 'users' }),
    clearNote: { column: anomalies.clearNote, schema: z.string().nullable() },
  },
  filter: [...AUDIT_SET, 'customer', 'inbox', 'name', 'user'],
  relations: {
    users: includedUsers(() => [anomalies.userId, anomalies.clearedBy]),
  },
  access: { read: EVERYONE, write: AGENTS },
  operations: ['list', 'get'],
});
