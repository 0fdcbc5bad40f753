import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { ADMINS } from '../../auth/access';
import { tickets, WEBHOOK_DELIVERY_STATES, webhookDeliveries, webhookEndpoints } from '../../db/schema';
import { AUDIT_SET, defineResource, readOnlyTimeField, referenceField } from '../../engine';
import { UNDECIDED } from './decide';

/** The delivery log of an endpoint: each event sent or to be sent, its tries and how the last one went. Read-only. */
export const webhookDeliveriesResource = defineResource({
  type: 'webhookdeliveries',
  singular: 'webhookdelivery',
  title: { one: 'WebhookDelivery', many: 'WebhookDeliveries', group: 'Webhooks' },
  table: webhookDeliveries,
  fields: {
    endpoint: referenceField(
      webhookDeliveries.endpointId,
      { table: webhookEndpoints, type: 'webhookendpoints' },
      { readOnly: true },
    ),
    event: {
      column: webhookDeliveries.event,
      schema: z.string().meta({ description: 'the webhook event (`X-Desk-Event`)' }),
      readOnly: true,
    },
    deliveryId: {
      column: webhookDeliveries.deliveryId,
      schema: z.string().meta({ description: '`X-Desk-Delivery`: the same on every try and redelivery' }),
      readOnly: true,
    },
    ticket: referenceField(webhookDeliveries.ticketId, { table: tickets, type: 'tickets' }, { readOnly: true }),
    status: {
      column: webhookDeliveries.status,
      schema: z.enum(WEBHOOK_DELIVERY_STATES).meta({
        description:
          'pending (to be tried, or tried again), delivered (a 2xx answer), failed (a day of failures, or its endpoint switched off)',
      }),
      readOnly: true,
    },
    attempts: { column: webhookDeliveries.attempts, schema: z.number().int(), readOnly: true },
    statusCode: {
      column: webhookDeliveries.statusCode,
      schema: z.number().int().nullable().meta({ description: "the last try's HTTP status; null: no answer" }),
      readOnly: true,
    },
    latencyMs: {
      column: webhookDeliveries.latencyMs,
      schema: z.number().int().nullable().meta({ description: "the last try's time to the answer, in milliseconds" }),
      readOnly: true,
    },
    lastError: {
      column: webhookDeliveries.lastError,
      schema: z.string().nullable().meta({
        description: 'why the last try failed without an answer (timed out, could not connect, a refused address)',
      }),
      readOnly: true,
    },
    lastAttemptAt: readOnlyTimeField(webhookDeliveries.lastAttemptAt, 'when it was last tried'),
    nextAttemptAt: readOnlyTimeField(webhookDeliveries.nextAttemptAt, 'when it is tried next (pending only)'),
    deliveredAt: readOnlyTimeField(webhookDeliveries.deliveredAt, 'when a try was answered with 2xx'),
    payload: {
      column: webhookDeliveries.payload,
      schema: z.string().meta({ description: 'the body sent, as sent' }),
      readOnly: true,
    },
  },
  filter: [...AUDIT_SET, 'attempts', 'deliveryId', 'event', 'status', 'statusCode', 'ticket'],
  defaultOrderBy: 'createdAt',
  relations: {},
  access: { read: ADMINS, write: ADMINS },
  // one the write made is in the log once it is decided (its webhook event known, `decide.ts`): before, it may yet be none
  scope: () => sql`${webhookDeliveries.event} <> ${UNDECIDED}`,
  operations: [],
});
