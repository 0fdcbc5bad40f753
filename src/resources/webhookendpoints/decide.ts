import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import type { StoredEvent } from '../../events/subscriber';
import { activitiesOf, type EntryFacts } from '../tickets/activities-of-event';
import type { JobMessage } from '../../jobs/job-message';
import { isRowId, MAX_DELIVERIES_A_MESSAGE, type RecordsHint } from './delivery-message';
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
    if (!hint || !isRowId(hint.eventId) || !isRowId(hint.installationId) || !isRowId(hint.recordId) || !RECORD_TYPES.includes(String(hint.recordType))) continue;
    if (hint.ticketId !== null && !isRowId(hint.ticketId)) continue;
    const checked = hint as RecordsHint;
    const records = recordsOf(db.http, checked, checked.ticketId);
    records.catch(() => undefined); // a read not used, or failed, is nobody's to hear
    ahead.set(checked.eventId, { hint: checked, records });
  }
  return ahead;
}

/** The records of the delivery's event: read ahead where the hint agrees with the rows read, else now. */
function recordsFor(db: Database, ahead: ReadAhead, event: StoredEvent, ticketId: number | null): Promise<Record<string, unknown>> {
  const read = ahead.get(event.id);
  const agrees = read && read.hint.installationId === event.installationId && read.hint.recordType === event.recordType && read.hint.recordId === event.recordId && read.hint.ticketId === ticketId;
  return agrees ? read.records : recordsOf(db.http, event, ticketId);
}

/** What a delivery the write made is, decided: its webhook events (none: it is dropped) and a body for each. */
export interface Decision {
  codes: string[];
  payloads: string[];
}

/** A delivery to decide. */
export interface ToDecide {
  id: number;
  ticketId: number | null;
  facts: UndecidedFacts | null;
}

/**
 * Decides the deliveries the writes made (`fanout.ts`) as they are first taken: which webhook
 * events each is, by the rules of the ticket's history (`activities-of-event.ts`), and the body,
 * with the records as they stand now (read ahead, or read side by side). Nothing is written here:
 * the decisions go into the statement that records the message's tries (`record-tries.ts`), where
 * a delivery that is none its endpoint wants is dropped, and one that is several becomes the
 * first, the others new deliveries right behind it in its ticket's order (`turn`). (A delivery has
 * a ticket whenever its event can be several webhook events: those behind it wait for it by their
 * ticket's order.)
 */
export async function decideDeliveries(db: Database, undecided: readonly ToDecide[], ahead: ReadAhead): Promise<Map<number, Decision>> {
  const records = new Map<number, Promise<Record<string, unknown>>>();
  const decided = undecided.map(({ id, ticketId, facts }) => {
    const codes = facts ? codesOf(facts) : [];
    if (facts && codes.length && !records.has(facts.storedEvent.id)) records.set(facts.storedEvent.id, recordsFor(db, ahead, facts.storedEvent, ticketId));
    return { id, codes, facts };
  });
  const answers = await Promise.all(
    decided.map(async ({ id, codes, facts }) => {
      const whole = facts && codes.length ? await records.get(facts.storedEvent.id)! : {};
      return [id, { codes, payloads: codes.map((code) => bodyOf(facts!.storedEvent, code, whole)) }] as const;
    }),
  );
  return new Map(answers);
}
