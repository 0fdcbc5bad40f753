import { sql } from 'drizzle-orm';
import { systemActor } from '../../auth/principal';
import type { Transaction } from '../../db/client';
import { selectOne, type ResourceDeclaration, type WireRecord } from '../../engine';
import type { StoredEvent, Subscriber } from '../../events/subscriber';
import { customersResource } from '../customers/customers.resource';
import { inboxesResource } from '../inboxes/inboxes.resource';
import { tagsResource } from '../tags/tags.resource';
import { messagesResource } from '../tickets/messages.resource';
import { activitiesOfStored } from '../tickets/record-activities';
import { ticketsResource } from '../tickets/tickets.resource';
import { usersResource } from '../users/users.resource';
import { deliverMessage } from './delivery-message';
import { endpointsQuery } from './webhookendpoints.resource';
import { RECORD_TYPES, webhookEventsOf, type WebhookEvent } from './webhook-events';

/** A ticket's references the payload carries as whole records, by the `included` type that holds them. */
const EMBEDDED: Record<string, string> = { customer: 'customers', agent: 'users', status: 'ticketstatuses', priority: 'ticketpriorities', type: 'tickettypes', tags: 'tags' };

/** The record of `resource` as the payload carries it, deleted ones too; null when it is not there at all. */
async function wholeRecord(tx: Transaction, resource: ResourceDeclaration, installationId: number, id: number, includes: string[] = []): Promise<WireRecord | null> {
  const result = await selectOne(tx, resource, id, { who: systemActor(installationId, 'webhooks'), includes, withDeleted: true });
  if (!result) return null;
  const record = { ...result.records[0]! };
  // references the includes answered become the records themselves
  for (const [property, type] of Object.entries(EMBEDDED)) {
    const included = result.included[type];
    if (!included || !(property in record)) continue;
    const find = (ref: { id: number } | null) => (ref === null ? null : (included.find((r) => r.id === ref.id) ?? ref));
    record[property] = Array.isArray(record[property]) ? record[property].map(find) : find(record[property]);
  }
  return record;
}

/** What an event's deliveries carry: the event, who made it, and the records it is about, whole. */
async function payloadOf(tx: Transaction, event: StoredEvent, ticketId: number | undefined, code: WebhookEvent): Promise<string> {
  const body: Record<string, unknown> = { event: code, occurredAt: new Date(event.occurredAt).toISOString(), eventCreatorId: event.actorUserId };
  if (ticketId !== undefined) body.ticket = await wholeRecord(tx, ticketsResource, event.installationId, ticketId, Object.values(EMBEDDED));
  if (event.recordType === 'messages') body.message = await wholeRecord(tx, messagesResource, event.installationId, event.recordId);
  const own: Record<string, [string, ResourceDeclaration]> = { customers: ['customer', customersResource], users: ['agent', usersResource], inboxes: ['inbox', inboxesResource], tags: ['tag', tagsResource] };
  const named = own[event.recordType];
  if (named) body[named[0]] = await wholeRecord(tx, named[1], event.installationId, event.recordId);
  return JSON.stringify(body);
}

interface EndpointRow {
  id: number;
  all_events: boolean;
  all_inboxes: boolean;
  codes: string[];
  inboxes: number[];
}

/**
 * Turns each write event into deliveries: for every webhook event it is (`webhook-events.ts`),
 * one delivery to every enabled endpoint that wants that event and, for a ticket's, the ticket's
 * inbox. The deliveries are written with the drain's transaction (an event makes its deliveries
 * once), then each is put on the queue (`webhooks.deliver`); one whose message is lost is found
 * by the cron.
 */
export const webhookFanout: Subscriber = {
  name: 'webhooks.fanout',
  on: RECORD_TYPES.map((recordType) => ({ recordType })),
  async handle(event, { tx, env }) {
    const { rows } = await tx.execute(endpointsQuery(event.installationId));
    const endpoints = rows as unknown as EndpointRow[];
    if (endpoints.length === 0) return;
    const ticketRelated = event.recordType === 'tickets' || event.recordType === 'messages';
    const { ticketId, drafts } = ticketRelated ? await activitiesOfStored(tx, event) : { ticketId: undefined, drafts: [] };
    const codes = webhookEventsOf(event, drafts);
    if (codes.length === 0) return;
    let inboxId: number | undefined;
    if (ticketId !== undefined) {
      const { rows: ticket } = await tx.execute(sql`SELECT inbox_id FROM tickets WHERE id = ${ticketId} AND installation_id = ${event.installationId}`);
      inboxId = ticket[0] ? Number(ticket[0].inbox_id) : undefined;
    }
    const made: number[] = [];
    for (const code of codes) {
      const wanting = endpoints.filter(
        (endpoint) =>
          (endpoint.all_events || endpoint.codes.includes(code)) &&
          (endpoint.all_inboxes || inboxId === undefined || endpoint.inboxes.map(Number).includes(inboxId)),
      );
      if (wanting.length === 0) continue;
      const payload = await payloadOf(tx, event, ticketId, code);
      const values = wanting.map(
        (endpoint) => sql`(${event.installationId}::int, ${Number(endpoint.id)}::int, ${event.id}::bigint, ${code}::text, ${crypto.randomUUID()}::text, ${ticketId ?? null}::int, ${payload}::text, now())`,
      );
      const { rows: inserted } = await tx.execute(sql`
        INSERT INTO webhook_deliveries (installation_id, endpoint_id, event_id, event, delivery_id, ticket_id, payload, next_attempt_at)
        VALUES ${sql.join(values, sql`, `)} ON CONFLICT DO NOTHING RETURNING id`);
      made.push(...inserted.map((row) => Number(row.id)));
    }
    if (made.length) await env.JOBS.sendBatch(made.map((id) => ({ body: deliverMessage(id) })));
  },
};
