import { sql } from 'drizzle-orm';
import type { Env } from '../../app-env';
import type { Transaction } from '../../db/client';
import { ticketsResource } from '../tickets/tickets.resource';
import { deliverMessage } from './delivery-message';
import { EMBEDDED, wholeRecord } from './payload';

/**
 * A delivery to one endpoint that no write event's fan-out made (a trigger's action 10): the
 * ticket whole, with `extra` beside it, sent, signed and retried like every delivery. Nothing when
 * the endpoint is switched off or gone.
 */
export async function queueDelivery(
  tx: Transaction,
  env: Env,
  delivery: { installationId: number; endpointId: number; ticketId: number; event: string; extra: Record<string, unknown> },
): Promise<void> {
  const ticket = await wholeRecord(tx, ticketsResource, delivery.installationId, delivery.ticketId, Object.values(EMBEDDED));
  const payload = JSON.stringify({ event: delivery.event, occurredAt: new Date().toISOString(), eventCreatorId: null, ...delivery.extra, ticket });
  const { rows } = await tx.execute(sql`
    INSERT INTO webhook_deliveries (installation_id, endpoint_id, event, delivery_id, ticket_id, payload, next_attempt_at)
    SELECT e.installation_id, e.id, ${delivery.event}, ${crypto.randomUUID()}, ${delivery.ticketId}::int, ${payload}, now()
      FROM webhook_endpoints e WHERE e.id = ${delivery.endpointId} AND e.installation_id = ${delivery.installationId} AND e.state = 'active' AND e.enabled
    RETURNING id`);
  if (rows[0]) await env.WEBHOOKS.send(deliverMessage([Number(rows[0].id)]));
}
