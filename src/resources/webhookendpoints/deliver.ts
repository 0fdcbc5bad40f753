import { eq, sql } from 'drizzle-orm';
import type { Env } from '../../app-env';
import { systemActor } from '../../auth/principal';
import { openDatabase, type Database } from '../../db/client';
import { webhookEndpoints } from '../../db/schema';
import { updateRecords } from '../../engine';
import { announceEvents } from '../../events/announce';
import { configureEvents, noteEvents } from '../../events/record-events';
import type { JobMessage } from '../../jobs/job-message';
import { RetryLater } from '../../jobs/retry-later';
import { decryptToken, webhookTokenContext } from '../../lib/crypto';
import { destinationRules, refusedDestination } from '../../lib/outbound/destination';
import { hmacHex } from '../../lib/webhook-signature';
import { deliverMessage, sendDeliveries } from './delivery-message';
import { webhookEndpointsResource } from './webhookendpoints.resource';

/** How long a receiver has to answer. */
const TIMEOUT_MS = 10_000;
/** How long a try holds its delivery: another message for it waits, and the cron takes it back after. */
const LEASE_SECONDS = 30;
/** A delivery whose row is not there yet may be in a transaction not committed yet: looked for again this long. */
const UNCOMMITTED_GRACE_MS = 60_000;
/** Failures of an endpoint for this long switch it off. */
const FAILING_FOR_MS = 24 * 3_600_000;

/** The wait before try `attempts + 1`: the base doubled per failure, up to an hour, with ±20 % jitter. */
export function retryDelaySeconds(attempts: number, baseSeconds: number, random = Math.random()): number {
  const plain = Math.min(3600, baseSeconds * 2 ** Math.max(0, attempts - 1));
  return Math.max(1, Math.round(plain * (0.8 + 0.4 * random)));
}

const headersFor = async (token: string, event: string, deliveryId: string, body: string) => {
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'helpdesk-webhooks/1',
    'x-desk-event': event,
    'x-desk-delivery': deliveryId,
    'x-desk-signature': await hmacHex(token, body),
    'x-desk-timestamp': String(timestamp),
    'x-desk-timestamp-signature': await hmacHex(token, `${timestamp}.${body}`),
  };
};

interface Attempt {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

/** One POST of the body to the endpoint's address, checked first; never follows a redirect (it could lead anywhere). */
async function post(env: Env, url: string, headers: Record<string, string>, body: string): Promise<Attempt> {
  const started = Date.now();
  const refused = await refusedDestination(url, destinationRules(env), AbortSignal.timeout(5_000));
  if (refused) return { statusCode: null, latencyMs: 0, error: `refused: ${refused}` };
  try {
    const response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
    await response.body?.cancel();
    return { statusCode: response.status, latencyMs: Date.now() - started, error: null };
  } catch (error) {
    const timedOut = (error as Error)?.name === 'TimeoutError' || (error as Error)?.name === 'AbortError';
    return { statusCode: null, latencyMs: Date.now() - started, error: timedOut ? `no answer in ${TIMEOUT_MS / 1000} s` : 'could not connect' };
  }
}

/** Records a try; switches the endpoint off after a day of failures (an `updated` event of it). Answers whether the delivery is to be tried again. */
async function record(db: Database, env: Env, delivery: Record<string, unknown>, attempt: Attempt): Promise<number | undefined> {
  const ok = attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300;
  const installationId = Number(delivery.installation_id);
  const attempts = Number(delivery.attempts) + 1;
  const wait = retryDelaySeconds(attempts, Number(env.WEBHOOK_RETRY_BASE_SECONDS) || 10);
  return db.transaction(async (tx) => {
    const { rows } = await tx.execute(sql`
      UPDATE webhook_deliveries SET attempts = ${attempts}, status_code = ${attempt.statusCode}::int, latency_ms = ${attempt.latencyMs}::int,
             last_error = ${attempt.error}::text, last_attempt_at = now(), updated_at = now(),
             status = CASE WHEN ${ok} THEN 'delivered' WHEN retry_until <= now() THEN 'failed' ELSE 'pending' END,
             delivered_at = CASE WHEN ${ok} THEN now() ELSE delivered_at END,
             next_attempt_at = CASE WHEN ${ok} OR retry_until <= now() THEN NULL ELSE now() + make_interval(secs => ${wait}::int) END
       WHERE id = ${Number(delivery.id)} RETURNING status`);
    const { rows: endpoint } = await tx.execute(sql`
      UPDATE webhook_endpoints SET failing_since = CASE WHEN ${ok} THEN NULL ELSE coalesce(failing_since, now()) END
       WHERE id = ${Number(delivery.endpoint_id)} RETURNING failing_since, enabled`);
    const failingSince = endpoint[0]?.failing_since;
    if (!ok && endpoint[0]?.enabled === true && failingSince && Date.now() - new Date(String(failingSince)).getTime() >= FAILING_FOR_MS) {
      const watched = { enabled: webhookEndpoints.enabled, disabledAt: webhookEndpointsResource.fields.disabledAt!.output! };
      await updateRecords(tx, systemActor(installationId, 'webhooks'), { table: webhookEndpoints, type: webhookEndpointsResource.type, where: eq(webhookEndpoints.id, Number(delivery.endpoint_id)) }, { enabled: false, disabledAt: sql`now()` }, watched);
      noteEvents(db, installationId, [['webhookendpoints', 'updated', ['enabled']]]);
    }
    return rows[0]?.status === 'pending' ? wait : undefined;
  });
}

/**
 * The queue consumer of `webhooks.deliver`: one try of one delivery. It waits its turn behind an
 * earlier delivery of the same ticket to the same endpoint (so a ticket's events arrive in order),
 * holds the delivery while it tries (a second message for it finds it held and leaves it), posts
 * the body with its signatures, and records the outcome. A failure comes back on the queue after
 * the backoff, until a day has passed; then the delivery is failed.
 */
export async function deliverWebhook(message: JobMessage, env: Env): Promise<void> {
  const id = Number(message.deliveryId);
  if (!Number.isSafeInteger(id)) return;
  configureEvents(env);
  const db = openDatabase(env);
  try {
    const { rows } = await db.http.execute(sql`
      SELECT d.id, d.installation_id, d.endpoint_id, d.event, d.delivery_id, d.ticket_id, d.payload, d.attempts, d.status, d.next_attempt_at,
             e.url, e.token, e.enabled AND e.state = 'active' AS open
        FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.id = ${id}`);
    const delivery = rows[0];
    if (!delivery) {
      if (Date.now() - Number(message.queuedAt ?? 0) < UNCOMMITTED_GRACE_MS) throw new RetryLater(2, `delivery ${id} is not committed yet`);
      return;
    }
    if (delivery.status !== 'pending') return;
    const dueIn = new Date(String(delivery.next_attempt_at)).getTime() - Date.now();
    if (dueIn > 1000) throw new RetryLater(Math.ceil(dueIn / 1000), `delivery ${id} is not due yet`);
    if (delivery.ticket_id !== null) {
      // an earlier delivery of the ticket to this endpoint goes first: this one waits, and that one, once done, sends it
      const { rows: earlier } = await db.http.execute(sql`
        SELECT 1 FROM webhook_deliveries
         WHERE endpoint_id = ${Number(delivery.endpoint_id)} AND ticket_id = ${Number(delivery.ticket_id)} AND status = 'pending' AND id < ${id} LIMIT 1`);
      if (earlier[0]) return;
    }
    if (!delivery.open) {
      await db.http.execute(sql`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = 'the endpoint is switched off or deleted', updated_at = now() WHERE id = ${id} AND status = 'pending'`);
      return;
    }
    // the lease: only the message that takes it tries now
    const { rows: leased } = await db.http.execute(sql`
      UPDATE webhook_deliveries SET next_attempt_at = now() + make_interval(secs => ${LEASE_SECONDS}::int)
       WHERE id = ${id} AND status = 'pending' AND next_attempt_at <= now() + interval '1 second' RETURNING id`);
    if (leased.length === 0) return;
    const token = await decryptToken(String(delivery.token), env.PM_TOKEN_KEY, webhookTokenContext(Number(delivery.installation_id)));
    const body = String(delivery.payload);
    const attempt = token === undefined
      ? { statusCode: null, latencyMs: 0, error: 'the signing token cannot be read (PM_TOKEN_KEY changed)' }
      : await post(env, String(delivery.url), await headersFor(token, String(delivery.event), String(delivery.delivery_id), body), body);
    const again = await record(db, env, delivery, attempt);
    await announceEvents(env, db);
    if (again !== undefined) {
      await env.JOBS.send(deliverMessage(id), { delaySeconds: again });
    } else if (delivery.ticket_id !== null) {
      // done with: the ticket's next delivery to this endpoint, which may be waiting on this one, goes now
      const { rows: next } = await db.http.execute(sql`
        SELECT id FROM webhook_deliveries WHERE endpoint_id = ${Number(delivery.endpoint_id)} AND ticket_id = ${Number(delivery.ticket_id)} AND status = 'pending' AND id > ${id}
         ORDER BY id LIMIT 1`);
      if (next[0]) await env.JOBS.send(deliverMessage(Number(next[0].id)));
    }
  } finally {
    await db.close();
  }
}

/** Deliveries the cron hands to the queue again in one run. */
const SWEEP_BATCH = 500;

/**
 * Every five minutes: pending deliveries past their time by a minute (a message lost, or a try
 * that died holding its lease) are queued again.
 */
export async function sweepDeliveries(env: Env): Promise<void> {
  const db = openDatabase(env);
  try {
    // a delivery waiting behind an earlier one of its ticket is not lost: the earlier one sends it when done
    const { rows } = await db.http.execute(sql`
      SELECT d.id FROM webhook_deliveries d WHERE d.status = 'pending' AND d.next_attempt_at < now() - interval '1 minute'
         AND NOT (d.ticket_id IS NOT NULL AND EXISTS (SELECT 1 FROM webhook_deliveries e
               WHERE e.endpoint_id = d.endpoint_id AND e.ticket_id = d.ticket_id AND e.status = 'pending' AND e.id < d.id))
       ORDER BY d.next_attempt_at LIMIT ${SWEEP_BATCH}`);
    await sendDeliveries(env, rows.map((row) => Number(row.id)));
  } finally {
    await db.close();
  }
}
