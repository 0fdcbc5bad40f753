import { z } from 'zod';
import { pmConnections } from '../../db/schema';

const userRef = z.object({ id: z.number().int(), type: z.literal('users') }).nullable();

/** The connection as the wire shows it: everything but the token, which is never sent back. */
export const pmConnectionSchema = z
  .object({
  id: z.number().int(),
  type: z.literal('pmconnections'),
  baseUrl: z.string(),
  hasToken: z.boolean(),
  lastSyncedAt: z.iso.datetime().nullable(),
  state: z.enum(['active', 'deleted']),
  createdAt: z.iso.datetime(),
  createdBy: userRef,
  updatedAt: z.iso.datetime(),
  updatedBy: userRef,
  })
  .meta({ id: 'PmConnection' });

export const pmConnectionBodySchema = z.object({ pmconnection: pmConnectionSchema }).meta({ id: 'PmConnectionBody' });

export type PmConnectionRow = typeof pmConnections.$inferSelect;

const user = (id: number | null) => (id === null ? null : { id, type: 'users' as const });

export function pmConnectionRecord(row: PmConnectionRow): z.infer<typeof pmConnectionSchema> {
  return {
    id: row.id,
    type: 'pmconnections',
    baseUrl: row.baseUrl,
    hasToken: row.tokenCiphertext !== '',
    lastSyncedAt: row.lastSyncedAt?.toISOString() ?? null,
    state: row.state,
    createdAt: row.createdAt.toISOString(),
    createdBy: user(row.createdBy),
    updatedAt: row.updatedAt.toISOString(),
    updatedBy: user(row.updatedBy),
  };
}
