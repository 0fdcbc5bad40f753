import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { pmConnections } from '../../db/schema';
import { finishRecord, recordJson, recordSchema, typed, type RecordShape } from '../../engine';

/** The connection as the wire shows it: the audit set and everything but the token, which is never sent back. */
export const pmConnectionShape: RecordShape = {
  type: 'pmconnections',
  component: 'PmConnection',
  table: pmConnections,
  properties: {
    baseUrl: pmConnections.baseUrl,
    hasToken: typed(sql`${pmConnections.tokenCiphertext} <> ''`, z.boolean()),
    lastSyncedAt: pmConnections.lastSyncedAt,
  },
};

/** The record, built by Postgres from the row (`SELECT` or `RETURNING`): finish it with `pmConnectionRecord`. */
export const pmConnectionJson = recordJson(pmConnectionShape);

export const pmConnectionSchema = recordSchema(pmConnectionShape);

/** `{"pmconnection": {...}, "included": {}}`: one record, as every one reads (nothing to include). */
export const pmConnectionBodySchema = z
  .object({ pmconnection: pmConnectionSchema, included: z.object({}) })
  .meta({ id: 'PmConnectionBody' });

export function pmConnectionRecord(json: unknown): z.infer<typeof pmConnectionSchema> {
  return finishRecord(json as Record<string, unknown>) as z.infer<typeof pmConnectionSchema>;
}
