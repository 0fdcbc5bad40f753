import { sql } from 'drizzle-orm';
import type { Subscriber } from '../../events/subscriber';
import { activitiesOfStored } from '../tickets/record-activities';
import { sendDeliveries } from './delivery-message';
import { anEnabledEndpoint, hasEndpoints } from './endpoint-presence';
import { payloadOf } from './payload';
import { endpointsQuery } from './webhookendpoints.resource';
import { RECORD_TYPES, webhookEventsOf } from './webhook-events';

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
 * inbox. The deliveries are written with the write itself (`inTransaction`; by the drain's
 * transaction for an event the write did not fan out), so an event makes its deliveries once,
 * then, once that commits, put on the queue together (`webhooks.deliver`, one message tries them
 * side by side); one whose message is lost is found by the cron.
 */
export const webhookFanout: Subscriber = {
  name: 'webhooks.fanout',
  on: RECORD_TYPES.map((recordType) => ({ recordType })),
  // with the write, where the installation has an endpoint to send to (else the drain finds none)
  inTransaction: {
    where: anEnabledEndpoint(sql`e.installation_id`),
    mayWant: hasEndpoints,
  },
  async handle(event, { tx, env, afterCommit }) {
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
      const payload = JSON.stringify(await payloadOf(tx, event, ticketId, code));
      // the payload sent once, whatever the number of endpoints
      const targets = JSON.stringify(wanting.map((endpoint) => ({ endpoint_id: Number(endpoint.id), delivery_id: crypto.randomUUID() })));
      const { rows: inserted } = await tx.execute(sql`
        INSERT INTO webhook_deliveries (installation_id, endpoint_id, event_id, event, delivery_id, ticket_id, payload, next_attempt_at)
        SELECT ${event.installationId}::int, x.endpoint_id, ${event.id}::bigint, ${code}::text, x.delivery_id, ${ticketId ?? null}::int, ${payload}::text, now()
          FROM jsonb_to_recordset(${targets}::jsonb) AS x(endpoint_id int, delivery_id text)
        ON CONFLICT DO NOTHING RETURNING id`);
      made.push(...inserted.map((row) => Number(row.id)));
    }
    if (made.length) afterCommit(() => sendDeliveries(env, made));
  },
};
