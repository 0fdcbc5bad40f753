import type { StoredEvent } from '../../events/subscriber';
import type { ActivityDraft } from '../tickets/activities-of-event';

/**
 * The webhook events: every one the platform lists, and ours (`ticket.sla.warning`,
 * `ticket.sla.breached`). Codes of a ticket's are its history's line types (`activities-of-event.ts`).
 */
export const WEBHOOK_EVENTS = [
  'ticket.created',
  'ticket.status',
  'ticket.priority',
  'ticket.assigned',
  'ticket.unassigned',
  'ticket.moved',
  'ticket.merged',
  'ticket.deleted',
  'ticket.note',
  'ticket.agent.reply',
  'ticket.customer.reply',
  'ticket.tag.added',
  'ticket.tag.removed',
  'thread.edited',
  'thread.deleted',
  'ticket.sla.warning',
  'ticket.sla.breached',
  'customer.created',
  'customer.edited',
  'customer.deleted',
  'agent.created',
  'agent.updated',
  'agent.deleted',
  'inbox.created',
  'inbox.edited',
  'inbox.deleted',
  'tag.created',
  'tag.edited',
  'tag.deleted',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/**
 * The event of `POST /v2/webhookendpoints/{id}/test.json` (`test-webhook-endpoint.route.ts`): sent when asked, to
 * that endpoint alone, whatever it wants; no endpoint subscribes to it, and it is tried once.
 */
export const TEST_WEBHOOK_EVENT = 'webhook.test';

const KNOWN = new Set<string>(WEBHOOK_EVENTS);

/** The record types whose events have webhook events of their own, by the name the codes use. */
const RECORD_CODES: Record<string, { name: string; created: string; updated: string; deleted: string }> = {
  customers: { name: 'customer', created: 'created', updated: 'edited', deleted: 'deleted' },
  users: { name: 'agent', created: 'created', updated: 'updated', deleted: 'deleted' },
  inboxes: { name: 'inbox', created: 'created', updated: 'edited', deleted: 'deleted' },
  tags: { name: 'tag', created: 'created', updated: 'edited', deleted: 'deleted' },
};

export const RECORD_TYPES = ['tickets', 'messages', ...Object.keys(RECORD_CODES)];

/** The webhook events a write event is, from a ticket's history lines, or by its record type and kind. */
export function webhookEventsOf(event: StoredEvent, drafts: readonly ActivityDraft[]): WebhookEvent[] {
  if (event.recordType === 'tickets' || event.recordType === 'messages') {
    return [...new Set(drafts.map((draft) => draft.eventType).filter((code) => KNOWN.has(code)))] as WebhookEvent[];
  }
  const codes = RECORD_CODES[event.recordType];
  const kind = codes?.[event.kind as 'created' | 'updated' | 'deleted'];
  return codes && kind ? [`${codes.name}.${kind}` as WebhookEvent] : [];
}

/** The webhook events each record type's events may be: a ticket's and its thread's for both, else the record's own. */
export function webhookEventsByRecordType(): Record<string, WebhookEvent[]> {
  const ofTickets = WEBHOOK_EVENTS.filter((code) => code.startsWith('ticket.') || code.startsWith('thread.'));
  return {
    tickets: ofTickets,
    messages: ofTickets,
    ...Object.fromEntries(
      Object.entries(RECORD_CODES).map(([type, { name }]) => [
        type,
        WEBHOOK_EVENTS.filter((code) => code.startsWith(`${name}.`)),
      ]),
    ),
  };
}
