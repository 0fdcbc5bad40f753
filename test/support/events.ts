import { expect } from 'vitest';
import { rows } from './db';
import { backgroundWait, eventually } from './room';

export interface EventRow {
  id: number;
  recordType: string;
  recordId: number;
  kind: string;
  data: Record<string, unknown>;
  actorUserId: number | null;
  actorSystem: string | null;
  dispatched: boolean;
}

const SELECT = `SELECT id::int, record_type AS "recordType", record_id AS "recordId", kind, data, actor_user_id AS "actorUserId",
  actor_system AS "actorSystem", dispatched_at IS NOT NULL AS dispatched FROM events`;

/** The events of an installation since an event id, in order. */
export function eventsSince(installationId: number, afterId = 0): Promise<EventRow[]> {
  return rows<EventRow>(`${SELECT} WHERE installation_id = $1 AND id > $2 ORDER BY id`, [installationId, afterId]);
}

/** The events of one record, in order. */
export function eventsOf(installationId: number, recordType: string, recordId: number): Promise<EventRow[]> {
  return rows<EventRow>(`${SELECT} WHERE installation_id = $1 AND record_type = $2 AND record_id = $3 ORDER BY id`, [
    installationId,
    recordType,
    recordId,
  ]);
}

/** The last event id of the installation so far: the mark to read the next ones from. */
export async function lastEventId(installationId: number): Promise<number> {
  const [row] = await rows<{ id: number | null }>('SELECT max(id)::int AS id FROM events WHERE installation_id = $1', [
    installationId,
  ]);
  return row?.id ?? 0;
}

/** Waits until every event of the installation is dispatched (handed to every subscriber that wants it). */
export async function drained(installationId: number, ms = 15_000): Promise<void> {
  await eventually(
    async () => {
      const [row] = await rows<{ left: number }>(
        'SELECT count(*)::int AS left FROM events WHERE installation_id = $1 AND dispatched_at IS NULL',
        [installationId],
      );
      return row!.left === 0 ? true : undefined;
      // the drain's rounds each pay round trips for every subscriber's try: with the database far, it is given longer
    },
    backgroundWait(ms) + 2 * backgroundWait(0),
  );
}

/** The kinds and record of a list of events, for a compact comparison. */
export function summary(events: EventRow[]): string[] {
  return events.map((event) => `${event.recordType}:${event.kind}`);
}

export function expectActor(events: EventRow[], userId: number | null, system: string | null = null): void {
  for (const event of events)
    expect({ user: event.actorUserId, system: event.actorSystem }).toEqual({ user: userId, system });
}
