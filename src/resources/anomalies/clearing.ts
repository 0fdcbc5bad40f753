import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Principal } from '../../auth/principal';
import { anomalies } from '../../db/schema';
import { recordBody, writableRecord } from '../../http/record-body';
import { anomaliesResource } from './anomalies.resource';

const CLEAR_NOTE_MAX = 2000;

/**
 * The body of both clears: an Anomaly of which only `clearNote` is read. The other properties
 * of the record (what a client read and sends back) are accepted and ignored; others are a 400.
 */
export const clearRecord = writableRecord(
  { clearNote: z.string().trim().max(CLEAR_NOTE_MAX).nullable().optional() },
  Object.keys(anomaliesResource.fields).filter((name) => name !== 'clearNote'),
).meta({ id: 'AnomalyClear' });

export const clearBody = recordBody('anomaly', clearRecord);

/**
 * What clearing sets on each selected row, in one UPDATE. Clearing is idempotent: an anomaly
 * already cleared keeps its first `clearedAt` and `clearedBy`; a `clearNote` sent replaces the
 * note. A row that ends up as it was keeps its `updatedAt`/`updatedBy`, so a repeat changes nothing.
 */
export function clearValues(who: Principal, note: string | null | undefined) {
  const t = anomalies;
  const cleared = sql`${t.status} = 'cleared'`;
  const noteChanges = note === undefined ? sql`false` : sql`${t.clearNote} IS DISTINCT FROM ${note}::text`;
  const changes = sql`(NOT ${cleared} OR ${noteChanges})`;
  return {
    status: 'cleared' as const,
    clearedAt: sql`CASE WHEN ${cleared} THEN ${t.clearedAt} ELSE now() END`,
    clearedBy: sql`CASE WHEN ${cleared} THEN ${t.clearedBy} ELSE ${who.userId}::int END`,
    ...(note === undefined ? {} : { clearNote: note }),
    updatedAt: sql`CASE WHEN ${changes} THEN now() ELSE ${t.updatedAt} END`,
    updatedBy: sql`CASE WHEN ${changes} THEN ${who.userId}::int ELSE ${t.updatedBy} END`,
  };
}

/** The wire properties clearing changes: an `updated` event holds them before and after, when they changed. */
export const clearedProperties = {
  status: anomalies.status,
  clearedAt: anomalies.clearedAt,
  clearedBy: anomaliesResource.fields.clearedBy!.output!,
  clearNote: anomalies.clearNote,
};
