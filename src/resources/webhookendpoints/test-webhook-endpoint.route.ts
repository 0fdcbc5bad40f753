import { and, eq, sql } from 'drizzle-orm';
import { recalled, remember } from '../../db/refusal';
import { webhookEndpoints } from '../../db/schema';
import { oneRecordRead, schemasOf, sendWithReadBack, tenantScope } from '../../engine';
import { ApiError } from '../../http/errors';
import { idParams } from '../../http/params';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { attemptOf, delivered, sharedByTries } from './attempt';
import { webhookDeliveriesResource } from './webhook-deliveries.resource';
import { deliveryBody } from './payload';
import { TEST_WEBHOOK_EVENT } from './webhook-events';
import { webhookEndpointsResource } from './webhookendpoints.resource';

/** The name the test delivery's new id goes by in the batch that writes it. */
const TESTED = 'test_delivery';

/**
 * `POST /v2/webhookendpoints/{id}/test.json`: one `webhook.test` event sent to the endpoint now, as
 * Stripe's "send test webhook" and GitHub's ping, and the outcome answered. Two exchanges with the
 * database around the receiver's answer: the endpoint read (as the API answers it, with its
 * address and sealed token), then one batch writing the delivery, already done, and reading it
 * back. Never pending, so neither the queue's consumer nor the cron's sweep ever tries it again.
 */
export const testWebhookEndpointRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/webhookendpoints/{id}/test.json',
    tag: 'Webhooks',
    operationId: 'testWebhookEndpoint',
    roles: webhookEndpointsResource.access.write,
    summary: 'Send an endpoint a test event',
    description:
      'Sends the endpoint one `webhook.test` event now and answers how it went. The body has the shape of every delivery\'s, `{"event": "webhook.test", "occurredAt", "eventCreatorId", "webhookendpoint": {...}}` (the endpoint as this API answers it), ' +
      "and it is sent as every delivery is: the same `X-Desk-*` headers and signatures with the endpoint's token, the address checked again (a private one is refused), 10 s to answer, no redirect followed. " +
      "The answer is the delivery as the endpoint's log now holds it: `delivered` on a 2xx answer, else `failed`, with the `statusCode` (null when there was none), `latencyMs` and `lastError`; a receiver that fails or cannot be reached is still a 200 describing it. " +
      'A test is tried once: never retried, not redelivered, and it does not count towards switching the endpoint off. A switched-off endpoint may be tested (and stays off). See docs/resources/webhookendpoints.md.',
    request: { params: idParams },
    responses: {
      200: jsonResponse(
        'the test delivery, tried: delivered or failed, and why',
        schemasOf(webhookDeliveriesResource).one,
      ),
      404: errorResponse("no such endpoint here (deleted, or another installation's)"),
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { id } = c.req.valid('param');
    const db = c.var.db;
    const read = oneRecordRead(webhookEndpointsResource, who, sql`${id}::int`, []);
    const { rows } = await db.http.execute(
      sql`SELECT r.record, ${webhookEndpoints.url} AS url, ${webhookEndpoints.token} AS token FROM (${read.statement}) r, ${webhookEndpoints} WHERE ${and(tenantScope(webhookEndpoints, who.installationId), eq(webhookEndpoints.id, id))}`,
    );
    const found = read.result(rows);
    if (!found) throw ApiError.notFound('id', `webhookendpoint ${id} not found`);
    const { url, token } = rows[0] as { url: string; token: string };

    const deliveryId = crypto.randomUUID();
    const payload = deliveryBody(TEST_WEBHOOK_EVENT, new Date(), who.userId, { webhookendpoint: found.records[0] });
    const attempt = await attemptOf(
      {
        installationId: who.installationId,
        endpointId: id,
        url,
        token,
        event: TEST_WEBHOOK_EVENT,
        deliveryId,
        payload,
      },
      sharedByTries(c.env),
    );

    const ok = delivered(attempt);
    // written done (delivered or failed), with no next try and no day of retries
    const made = sql`
    INSERT INTO webhook_deliveries (installation_id, endpoint_id, event, delivery_id, payload, status, attempts, status_code, latency_ms, last_error,
                                    last_attempt_at, delivered_at, next_attempt_at, retry_until, created_by, updated_by)
    VALUES (${who.installationId}, ${id}, ${TEST_WEBHOOK_EVENT}, ${deliveryId}, ${payload}, ${ok ? 'delivered' : 'failed'}, 1,
            ${attempt.statusCode}::int, ${attempt.latencyMs}::int, ${attempt.error}::text, now(), ${ok ? sql`now()` : sql`NULL`}, NULL, now(), ${who.userId}, ${who.userId})
    RETURNING ${remember(TESTED, sql`id`)}`;
    const body = await sendWithReadBack(db, webhookDeliveriesResource, who, [made], recalled(TESTED), []);
    if (body === null) throw new Error(`the test delivery of webhookendpoint ${id} is not there to read back`);
    return c.json(body, 200);
  },
);
