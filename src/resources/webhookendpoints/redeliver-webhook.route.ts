import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { ADMINS } from '../../auth/access';
import { refuseWhen } from '../../db/refusal';
import { webhookDeliveries, webhookEndpoints } from '../../db/schema';
import { recordScope, schemasOf, sendWithReadBack } from '../../engine';
import { ApiError } from '../../http/errors';
import { integerParam } from '../../http/params';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { webhookDeliveriesResource } from './webhook-deliveries.resource';
import { deliverMessage } from './delivery-message';
import { TEST_WEBHOOK_EVENT } from './webhook-events';
import { webhookEndpointsResource } from './webhookendpoints.resource';

/**
 * `POST /v2/webhookendpoints/{id}/deliveries/{deliveryId}/redeliver.json`: sends one delivery
 * again, the same body and delivery id, now and with fresh tries (a delivered one too; not a test
 * event's, which is tried once). One batch (one exchange with the database): the endpoint and the
 * delivery checked, the delivery locked.
 */
export const redeliverWebhookRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/webhookendpoints/{id}/deliveries/{deliveryId}/redeliver.json',
    tag: 'Webhooks',
    operationId: 'redeliverWebhook',
    roles: ADMINS,
    summary: 'Send a delivery again',
    description:
      "Puts one delivery of the endpoint back on the queue to be sent now: the same body and `X-Desk-Delivery` id, its tries counted afresh and a fresh day of retries, a delivered one too; answers 202 with the delivery as it now stands. One being tried or waiting for its next try is a 409 (it would be sent twice at once), and so is a test event's (tried once: send another with the test route); another endpoint's or installation's delivery is a 404. One exchange with the database. See docs/resources/webhookendpoints.md.",
    request: {
      params: z.object({
        id: integerParam("the endpoint's id"),
        deliveryId: integerParam("the delivery's id (the log's `id`)"),
      }),
    },
    responses: {
      202: jsonResponse('queued: the delivery as it now stands', schemasOf(webhookDeliveriesResource).one),
      404: errorResponse('no such endpoint or delivery here'),
      409: errorResponse('the delivery is being tried, waits for its next try, or is a test event (tried once)'),
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { id, deliveryId } = c.req.valid('param');
    const delivery = and(
      eq(webhookDeliveries.id, deliveryId),
      eq(webhookDeliveries.endpointId, id),
      recordScope(webhookDeliveriesResource, who),
    )!;
    const body = await sendWithReadBack(
      c.var.db,
      webhookDeliveriesResource,
      who,
      [
        refuseWhen(
          sql`NOT EXISTS (SELECT 1 FROM ${webhookEndpoints} WHERE ${and(recordScope(webhookEndpointsResource, who), eq(webhookEndpoints.id, id))})`,
          404,
          'id',
          `webhookendpoint ${id} not found`,
        ),
        // locked as it is checked: a try that takes it meanwhile waits, or is seen
        sql`WITH locked AS (SELECT ${webhookDeliveries.status} AS status, ${webhookDeliveries.nextAttemptAt} > now() AS tried, ${webhookDeliveries.event} AS event FROM ${webhookDeliveries} WHERE ${delivery} FOR UPDATE)
      SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM locked) THEN desk_refuse(404, 'deliveryId', ${`webhookdelivery ${deliveryId} not found`}::text)
                  -- sent again it would be retried for a day: a test is tried once
                  WHEN EXISTS (SELECT 1 FROM locked WHERE event = ${TEST_WEBHOOK_EVENT})
                  THEN desk_refuse(409, 'deliveryId', ${`webhookdelivery ${deliveryId} is a test event, tried once: send another with POST /v2/webhookendpoints/${id}/test.json`}::text)
                  WHEN EXISTS (SELECT 1 FROM locked WHERE status = 'pending' AND tried)
                  THEN desk_refuse(409, 'deliveryId', ${`webhookdelivery ${deliveryId} is being tried or waits for its next try; redeliver it once that is done`}::text) END`,
        c.var.db.http
          .update(webhookDeliveries)
          .set({
            status: 'pending',
            attempts: 0,
            nextAttemptAt: sql`now()`,
            retryUntil: sql`now() + interval '1 day'`,
            updatedAt: sql`now()`,
            updatedBy: who.userId,
          })
          .where(delivery)
          .getSQL(),
      ],
      sql`${deliveryId}::int`,
      [],
    );
    if (body === null) throw ApiError.notFound('deliveryId', `webhookdelivery ${deliveryId} not found`);
    await c.env.WEBHOOKS.send(deliverMessage([deliveryId]));
    return c.json(body, 202);
  },
);
