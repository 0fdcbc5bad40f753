import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';
import { inboxes } from './inboxes';

/** Where an installation's events are pushed, signed with its token (`src/resources/webhookendpoints/`). */
export const webhookEndpoints = pgTable('webhook_endpoints', {
  ...auditColumns(),
  url: text('url').notNull(),
  /** the signing secret, sealed (`encryptToken`): never answered */
  token: text('token').notNull(),
  allInboxes: boolean('all_inboxes').notNull().default(true),
  allEvents: boolean('all_events').notNull().default(true),
  contentType: text('content_type').notNull().default('application/json'),
  /** switched off by its owner, or by a day of failed deliveries (`disabledAt`) */
  enabled: boolean('enabled').notNull().default(true),
  disabledAt: timestamp('disabled_at', { withTimezone: true, precision: 3 }),
  /** the first failure of the failures going on now; null: the last delivery went through */
  failingSince: timestamp('failing_since', { withTimezone: true, precision: 3 }),
});

/** An event an endpoint wants (when not `allEvents`), by its code (`ticket.created`). */
export const webhookEndpointEvents = pgTable(
  'webhook_endpoint_events',
  {
    ...auditColumns(),
    endpointId: integer('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id),
    code: text('code').notNull(),
  },
  (t) => [index('webhook_endpoint_events_endpoint_idx').on(t.endpointId)],
);

/** An inbox whose tickets' events an endpoint wants (when not `allInboxes`). */
export const webhookEndpointInboxes = pgTable(
  'webhook_endpoint_inboxes',
  {
    ...auditColumns(),
    endpointId: integer('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id),
    inboxId: integer('inbox_id')
      .notNull()
      .references(() => inboxes.id),
  },
  (t) => [index('webhook_endpoint_inboxes_endpoint_idx').on(t.endpointId)],
);

export const WEBHOOK_DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;

/**
 * One event for one endpoint: its body as sent (so every try, and a redelivery, signs the same
 * bytes), its tries and how the last went. An event goes to an endpoint once (`event_id`, `event`).
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    ...auditColumns(),
    endpointId: integer('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id),
    /** the write event it tells of; null: made by a trigger's action */
    eventId: bigint('event_id', { mode: 'number' }),
    /** its webhook event, as `X-Desk-Event` names it; '' while not decided yet (`UNDECIDED`) */
    event: text('event').notNull(),
    /** `X-Desk-Delivery`: the same on every try and redelivery */
    deliveryId: text('delivery_id').notNull(),
    /** the ticket it is about: deliveries of one ticket go to an endpoint in order */
    ticketId: integer('ticket_id'),
    /** the body as sent; '' while not decided yet */
    payload: text('payload').notNull(),
    /**
     * Its place in its ticket's order to its endpoint, when not its own id: a delivery its event's
     * first delivery to the endpoint grew into (another webhook event of the same change) takes
     * that one's id, and comes right after it (`ORDER_KEY`).
     */
    turn: integer('turn'),
    status: text('status', { enum: WEBHOOK_DELIVERY_STATES }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    statusCode: integer('status_code'),
    latencyMs: integer('latency_ms'),
    lastError: text('last_error'),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true, precision: 3 }),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, precision: 3 }),
    deliveredAt: timestamp('delivered_at', { withTimezone: true, precision: 3 }),
    /** failures until then are tried again; a day after it is made, or redelivered */
    retryUntil: timestamp('retry_until', { withTimezone: true, precision: 3 })
      .notNull()
      .default(sql`now() + interval '1 day'`),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_event_key').on(t.endpointId, t.eventId, t.event),
    uniqueIndex('webhook_deliveries_delivery_id_key').on(t.deliveryId),
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.id),
    index('webhook_deliveries_pending_idx')
      .on(t.nextAttemptAt)
      .where(sql`status = 'pending'`),
    index('webhook_deliveries_ticket_order_idx')
      .on(t.endpointId, t.ticketId, sql`coalesce(turn, id)`, t.id)
      .where(sql`status = 'pending'`),
  ],
);
