import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import type { StoredEvent } from '../../events/subscriber';
import { activitiesOf, type EntryFacts } from '../tickets/activities-of-event';
import type { JobMessage } from '../../jobs/job-message';
import { isRowId } from '../../http/params';
import { MAX_DELIVERIES_A_MESSAGE, type RecordsHint } from './delivery-message';
import { bodyOf, recordsOf } from './payload';
import { RECORD_TYPES, webhookEventsOf } from './webhook-events';

/** `event` and `payload` of a delivery the write made, before it is decided. */
export const UNDECIDED = '';

/** What deciding a delivery needs: its event, the entry facts of a thread entry's, and the events its endpoint wants (null: all). */
export interface UndecidedFacts {
  storedEvent: StoredEvent;
  entry: EntryFacts | null;
  wants: string[] | null;
}

/** The read's column `undecided` (deliver.ts) for the delivery `d` to the endpoint `e`: null once decided, or its event gone. */
export const undecidedColumn = sql`CASE WHEN d.event = ${UNDECIDED} THEN (
    SELECT json_build_object(
      'storedEvent', json_build_object('id', v.id, 'installationId', v.installation_id, 'recordType', v.record_type, 'recordId', v.record_id, 'kind', v.kind,
                                       'data', v.data, 'actorUserId', v.actor_user_id, 'actorSystem', v.actor_system, 'occurredAt', v.occurred_at),
      'entry', (SELECT json_build_object('threadType', m.thread_type, 'byCustomer', m.customer_id IS NOT NULL) FROM ticket_messages m
                 WHERE v.record_type = 'messages' AND m.id = v.record_id AND m.installation_id = v.installation_id),
      'wants', CASE WHEN e.all_events THEN NULL
                    ELSE (SELECT coalesce(json_agg(c.code), '[]') FROM webhook_endpoint_events c WHERE c.endpoint_id = e.id AND c.state = 'active') END)
      FROM events v WHERE v.id = d.event_id) END`;

/** What a trigger's webhook action sends (the fan-out writes its deliveries only to the endpoints the action names). */
export const TRIGGER_WEBHOOK_EVENT = 'ticket.trigger';

/** The webhook events of a delivery's event that its endpoint wants, in the history's order. */
function codesOf({ storedEvent, entry, wants }: UndecidedFacts): string[] {
  if (storedEvent.kind === 'triggered') return [TRIGGER_WEBHOOK_EVENT];
  const codes = webhookEventsOf(storedEvent, activitiesOf(storedEvent, entry ?? undefined));
  return wants === null ? codes : codes.filter((code) => wants.includes(code));
}

/** Records read ahead, by event id: what the write said each event's bodies carry, being read. */
export type ReadAhead = Map<number, { hint: RecordsHint; records: Promise<Record<string, unknown>> }>;

/**
 * Starts reading the records a message's hints name (`RecordsHint`), so they are read while its
 * deliveries are: a hint of a shape not the write's is left out.
 */
export function readAhead(db: Database, message: JobMessage): ReadAhead {
  const ahead: ReadAhead = new Map();
  const hints = Array.isArray(message.records) ? (message.records as unknown[]).slice(0, MAX_DELIVERIES_A_MESSAGE) : [];
  for (const hint of hints as Array<Partial<RecordsHint>>) {
    if (
      !hint ||
      !isRowId(hint.eventId) ||
      !isRowId(hint.installationId) ||
      !isRowId(hint.recordId) ||
      !RECORD_TYPES.includes(String(hint.recordType))
    )
      continue;
    if (hint.ticketId !== null && !isRowId(hint.ticketId)) continue;
    const checked = hint as RecordsHint;
    const records = recordsOf(db.http, checked, checked.ticketId);
    records.catch(() => undefined); // a read not used, or failed, is nobody's to hear
    ahead.set(checked.eventId, { hint: checked, records });
  }
  return ahead;
}

/** The records of the delivery's event: read ahead where the hint agrees with the rows read, else now. */
function recordsFor(
  db: Database,
  ahead: ReadAhead,
  event: StoredEvent,
  ticketId: number | null,
): Promise<Record<string, unknown>> {
  const read = ahead.get(event.id);
  const agrees =
    read &&
    read.hint.installationId === event.installationId &&
    read.hint.recordType === event.recordType &&
    read.hint.recordId === event.recordId &&
    read.hint.ticketId === ticketId;
  return agrees ? read.records : recordsOf(db.http, event, ticketId);
}

export interface Decision {
  event: string;
  payload: string;
}

/** The decision of a delivery that is none of what its endpoint wants: it was dropped. */
export const DROPPED: Decision = Object.freeze({ event: UNDECIDED, payload: UNDECIDED });

/** A delivery to decide; `hold`: to be tried by this message now, so held for `leaseSeconds` as it is decided. */
export interface ToDecide {
  id: number;
  ticketId: number | null;
  facts: UndecidedFacts | null;
  hold: boolean;
}

/**
 * Decides the deliveries the writes made (`webhook-fanout.subscriber.ts`) as they are first tried: which webhook
 * events each is, by the rules of the ticket's history (`activities-of-event.ts`), and the body,
 * with the records as they stand now. A delivery that is none its endpoint wants is dropped; one
 * that is several becomes the first, and the others are new deliveries right behind it in its
 * ticket's order (`turn`), sent once it is done. One statement for all, after the records are
 * read side by side; a delivery another message decided meanwhile is left to that one (only the
 * message that decides one holds it). Answers the decision of each delivery this message decided
 * (`DROPPED` for one dropped).
 * (A delivery has a ticket whenever its event can be several webhook events: those behind it wait
 * for it by their ticket's order.)
 */
export async function decideDeliveries(
  db: Database,
  undecided: readonly ToDecide[],
  leaseSeconds: number,
  ahead: ReadAhead,
): Promise<Map<number, Decision>> {
  const records = new Map<number, Promise<Record<string, unknown>>>();
  const decided = undecided.map(({ id, ticketId, facts, hold }) => {
    const codes = facts ? codesOf(facts) : [];
    if (facts && codes.length && !records.has(facts.storedEvent.id))
      records.set(facts.storedEvent.id, recordsFor(db, ahead, facts.storedEvent, ticketId));
    return { id, codes, facts, hold };
  });
  // an event's deliveries to every endpoint carry the same bodies: each made once
  const bodies = new Map<string, string>();
  const body = (event: StoredEvent, code: string, whole: Record<string, unknown>) => {
    const key = `${event.id} ${code}`;
    if (!bodies.has(key)) bodies.set(key, bodyOf(event, code, whole));
    return bodies.get(key)!;
  };
  const rows = await Promise.all(
    decided.map(async ({ id, codes, facts, hold }) => {
      const whole = facts && codes.length ? await records.get(facts.storedEvent.id)! : {};
      return { id, hold, codes, payloads: codes.map((code) => body(facts!.storedEvent, code, whole)) };
    }),
  );
  const { rows: done } = await db.http.execute(sql`
    WITH x AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(id int, hold boolean, codes jsonb, payloads jsonb)),
    dropped AS (DELETE FROM webhook_deliveries d USING x WHERE d.id = x.id AND d.event = ${UNDECIDED} AND jsonb_array_length(x.codes) = 0 RETURNING d.id),
    first AS (
      UPDATE webhook_deliveries d SET event = x.codes->>0, payload = x.payloads->>0, updated_at = now(),
             next_attempt_at = CASE WHEN x.hold THEN now() + make_interval(secs => ${leaseSeconds}::int) ELSE d.next_attempt_at END
        FROM x WHERE d.id = x.id AND d.event = ${UNDECIDED} AND jsonb_array_length(x.codes) > 0
      RETURNING d.id, d.installation_id, d.endpoint_id, d.event_id, d.ticket_id, d.event, d.payload),
    more AS (
      INSERT INTO webhook_deliveries (installation_id, endpoint_id, event_id, event, delivery_id, ticket_id, payload, next_attempt_at, turn)
      SELECT f.installation_id, f.endpoint_id, f.event_id, x.codes->>n, gen_random_uuid()::text, f.ticket_id, x.payloads->>n, now(), f.id
        FROM first f JOIN x ON x.id = f.id CROSS JOIN LATERAL generate_series(1, jsonb_array_length(x.codes) - 1) AS n
       ORDER BY f.id, n
      ON CONFLICT DO NOTHING RETURNING id)
    SELECT id, event, payload FROM first UNION ALL SELECT id, NULL, NULL FROM dropped`);
  return new Map(
    done.map((row) => [
      Number(row.id),
      row.event === null ? DROPPED : { event: String(row.event), payload: String(row.payload) },
    ]),
  );
}
