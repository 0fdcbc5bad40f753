import { sql } from 'drizzle-orm';
import type { AiStream } from '../../db/schema';
import type { Queryable } from '../../db/client';

export interface AiUsageEvent {
  installationId: number;
  stream: AiStream;
  /** what the AI produced: a message row, for both streams */
  sourceType: 'conversationmessages';
  sourceId: number;
  occurredAt: Date;
  units?: number;
}

/**
 * Meters AI work, in the caller's transaction, where it is stored: at most once per source, so
 * a redelivered message is never billed twice.
 */
export async function recordAiUsage(db: Queryable, events: AiUsageEvent[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map(
    (event) =>
      sql`(${event.installationId}, ${event.stream}, ${event.units ?? 1}, ${event.sourceType}, ${event.sourceId}, ${event.occurredAt.toISOString()}::timestamptz)`,
  );
  await db.execute(sql`
    insert into ai_usage_events (installation_id, stream, units, source_type, source_id, occurred_at)
    values ${sql.join(rows, sql`, `)}
    on conflict (stream, source_type, source_id) do nothing`);
}
