import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import type { StoredEvent } from '../../events/subscriber';
import { activitiesOf, type EntryFacts } from '../tickets/activities-of-event';
import type { JobMessage } from '../../jobs/job-message';
import { isRowId } from '../../http/params';
import { MAX_DELIVERIES_A_MESSAGE, type RecordsHint } from './delivery-message';
import { bodyOf, recordsOf, recordsRead, type BatchRead } from './payload';
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

/** Records read ahead, by event id: what the write said each event's bodies carry, read in the message's first batch (`records` once answered). */
export type ReadAhead = Map<
  number,
  { hint: RecordsHint; read: BatchRead<Record<string, unknown>>; records?: Record<string, unknown> }
>;

/**
 * The reads of the records a message's hints name (`RecordsHint`), to send in the batch that reads
 * its deliveries: a hint of a shape not the write's is left out.
 */
export function readAhead(message: JobMessage): ReadAhead {
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
    ahead.set(checked.eventId, { hint: checked, read: recordsRead(checked, checked.ticketId) });
  }
  return ahead;
}

/** The records of the delivery's event: read ahead where the hint agrees with the rows read, else now (one batch). */
async function recordsFor(
  db: Database,
  ahead: ReadAhead,
  event: StoredEvent,
  ticketId: number | null,
): Promise<Record<string, unknown>> {
  const read = ahead.get(event.id);
  const agrees =
    read?.records &&
    read.hint.installationId === event.installationId &&
    read.hint.recordType === event.recordType &&
    read.hint.recordId === event.recordId &&
    read.hint.ticketId === ticketId;
  return agrees ? read.records! : recordsOf(db, event, ticketId);
}

/**
 * What a delivery the write made turns out to be, decided when it is first tried or first waits
 * (`webhook-fanout.subscriber.ts` writes it undecided): its webhook events, by the rules of the
 * ticket's history (`activities-of-event.ts`), those its endpoint wants, each with its body, with
 * the records as they stand now. None: it is dropped. Several: it becomes the first, and the others
 * are new deliveries right behind it in its ticket's order (`turn`), sent once it is done. Written
 * by the message's one statement after its tries (`deliver.ts`).
 */
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
 * Decides the deliveries: no statement of its own, the records read side by side (read ahead
 * where the write's hint agrees). A delivery whose event is gone is none.
 * (A delivery has a ticket whenever its event can be several webhook events: those behind it wait
 * for it by their ticket's order.)
 */
export async function decideDeliveries(
  db: Database,
  undecided: readonly ToDecide[],
  ahead: ReadAhead,
): Promise<Map<number, Decision>> {
  const records = new Map<number, Promise<Record<string, unknown>>>();
  const decided = undecided.map(({ id, ticketId, facts }) => {
    const codes = facts ? codesOf(facts) : [];
    if (facts && codes.length && !records.has(facts.storedEvent.id))
      records.set(facts.storedEvent.id, recordsFor(db, ahead, facts.storedEvent, ticketId));
    return { id, codes, facts };
  });
  const decisions = await Promise.all(
    decided.map(async ({ id, codes, facts }) => {
      const whole = facts && codes.length ? await records.get(facts.storedEvent.id)! : {};
      return [id, { codes, payloads: codes.map((code) => bodyOf(facts!.storedEvent, code, whole)) }] as const;
    }),
  );
  return new Map(decisions);
}
