import { and, eq, sql } from 'drizzle-orm';
import type { Env } from '../../app-env';
import { intList } from '../../db/sql-values';
import { systemActor } from '../../auth/principal';
import type { Database } from '../../db/client';
import { webhookEndpoints } from '../../db/schema';
import { updateStatement } from '../../engine';
import { backoffSeconds } from '../../jobs/backoff';
import { outboxConsumer, outboxSweep, type Outbox } from '../../jobs/outbox';
import { attemptOf, delivered, sharedByTries, type Attempt } from './attempt';
import {
  decideDeliveries,
  DROPPED,
  readAhead,
  UNDECIDED,
  undecidedColumn,
  type ReadAhead,
  type UndecidedFacts,
} from './decide';
import { MAX_DELIVERIES_A_MESSAGE, queueDeliveries } from './delivery-message';
import { webhookEndpointsResource } from './webhookendpoints.resource';

/** How long a try holds its delivery: another message for it waits, and the cron takes it back after. */
const LEASE_SECONDS = 30;
/** Failures of an endpoint for this long switch it off. */
const FAILING_FOR_MS = 24 * 3_600_000;

interface Delivery {
  id: number;
  installationId: number;
  endpointId: number;
  event: string;
  deliveryId: string;
  ticketId: number | null;
  turn: number | null;
  payload: string;
  attempts: number;
  dueIn: number;
  url: string;
  token: string;
  open: boolean;
  /** an earlier delivery of its ticket to its endpoint is still pending */
  waiting: boolean;
  /** what deciding it needs, while the write's fan-out has not decided it (`decide.ts`) */
  undecided: UndecidedFacts | null;
}

/** A delivery's place in its ticket's order to its endpoint (SQL, a row value over the alias): by its turn, then its id. */
const orderKey = (alias: string) => sql.raw(`(coalesce(${alias}.turn, ${alias}.id), ${alias}.id)`);

/** The deliveries of `ids` with their endpoints, in id order. */
async function readDeliveries(db: Database, ids: readonly number[]): Promise<Delivery[]> {
  const { rows } = await db.http.execute(sql`
    SELECT d.id, d.installation_id AS "installationId", d.endpoint_id AS "endpointId", d.event, d.delivery_id AS "deliveryId", d.ticket_id AS "ticketId", d.turn,
           d.payload, d.attempts, extract(epoch FROM d.next_attempt_at - now())::float8 * 1000 AS "dueIn",
           e.url, e.token, e.enabled AND e.state = 'active' AS open,
           (d.ticket_id IS NOT NULL AND EXISTS (SELECT 1 FROM webhook_deliveries p
              WHERE p.endpoint_id = d.endpoint_id AND p.ticket_id = d.ticket_id AND p.status = 'pending' AND ${orderKey('p')} < ${orderKey('d')})) AS waiting,
           ${undecidedColumn} AS undecided
      FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
     WHERE d.id IN ${intList(ids)} AND d.status = 'pending' ORDER BY d.id`);
  return rows.map((row) => ({
    ...(row as unknown as Delivery),
    id: Number(row.id),
    endpointId: Number(row.endpointId),
    installationId: Number(row.installationId),
    attempts: Number(row.attempts),
    dueIn: Number(row.dueIn),
  }));
}

/**
 * Records the tries in one statement: each delivery delivered, pending again after its backoff, or
 * failed once its day is over; each endpoint failing since its first failure, or not failing once
 * one try to it succeeded. Answers the deliveries to try again (with their waits), those to send
 * now (after each delivery done with, tried or `dropped` before the tries, the next pending one of
 * its ticket to its endpoint, in the ticket's order: one waiting on it), and the endpoints failing
 * for a day (since before this statement) and still on.
 */
async function record(
  db: Database,
  env: Env,
  tries: Array<{ delivery: Delivery; attempt: Attempt }>,
  dropped: readonly Delivery[],
) {
  const base = Number(env.WEBHOOK_RETRY_BASE_SECONDS) || 10;
  const outcomes = tries.map(({ delivery, attempt }) => ({
    id: delivery.id,
    endpoint_id: delivery.endpointId,
    ticket_id: delivery.ticketId,
    turn: delivery.turn,
    attempts: delivery.attempts + 1,
    status_code: attempt.statusCode,
    latency_ms: attempt.latencyMs,
    error: attempt.error,
    ok: delivered(attempt),
    wait: backoffSeconds(delivery.attempts + 1, base),
  }));
  const gone = dropped.map((d) => ({ id: d.id, endpoint_id: d.endpointId, ticket_id: d.ticketId, turn: d.turn }));
  const { rows } = await db.http.execute(sql`
    WITH outcome AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(outcomes)}::jsonb)
        AS o(id int, endpoint_id int, ticket_id int, turn int, attempts int, status_code int, latency_ms int, error text, ok boolean, wait int)),
    tried AS (
      UPDATE webhook_deliveries d SET attempts = o.attempts, status_code = o.status_code, latency_ms = o.latency_ms, last_error = o.error,
             last_attempt_at = now(), updated_at = now(),
             status = CASE WHEN o.ok THEN 'delivered' WHEN d.retry_until <= now() THEN 'failed' ELSE 'pending' END,
             delivered_at = CASE WHEN o.ok THEN now() ELSE d.delivered_at END,
             next_attempt_at = CASE WHEN o.ok OR d.retry_until <= now() THEN NULL ELSE now() + make_interval(secs => o.wait) END
        FROM outcome o WHERE d.id = o.id
      RETURNING d.id, d.status, o.wait, o.endpoint_id, o.ticket_id, o.turn),
    per_endpoint AS (SELECT endpoint_id, bool_or(ok) AS ok FROM outcome GROUP BY endpoint_id),
    -- only an endpoint whose state changes is written: every try of a healthy one would otherwise
    -- lock and rewrite its row, and the messages tried side by side would queue (and deadlock) on it
    marked AS (
      UPDATE webhook_endpoints e SET failing_since = CASE WHEN x.ok THEN NULL ELSE now() END
        FROM per_endpoint x
       WHERE e.id = x.endpoint_id AND (x.ok = (e.failing_since IS NOT NULL))
      RETURNING e.id),
    failing AS (
      SELECT e.id, e.installation_id FROM webhook_endpoints e JOIN per_endpoint x ON x.endpoint_id = e.id
       WHERE NOT x.ok AND e.enabled AND e.failing_since <= now() - make_interval(secs => ${FAILING_FOR_MS / 1000})),
    done AS (
      SELECT id, endpoint_id, ticket_id, turn FROM tried WHERE status <> 'pending' AND ticket_id IS NOT NULL
      UNION ALL SELECT * FROM jsonb_to_recordset(${JSON.stringify(gone)}::jsonb) AS g(id int, endpoint_id int, ticket_id int, turn int)
       WHERE ticket_id IS NOT NULL),
    next AS (
      SELECT DISTINCT ON (d.endpoint_id, d.ticket_id) d.id
        FROM done x JOIN webhook_deliveries d
          ON d.endpoint_id = x.endpoint_id AND d.ticket_id = x.ticket_id AND ${orderKey('d')} > (coalesce(x.turn, x.id), x.id)
       WHERE d.status = 'pending' ORDER BY d.endpoint_id, d.ticket_id, coalesce(d.turn, d.id), d.id)
    SELECT 'again' AS what, id, wait, NULL::int AS installation_id FROM tried WHERE status = 'pending'
    UNION ALL SELECT 'next', id, 0, NULL FROM next
    UNION ALL SELECT 'endpoint', id, NULL, installation_id FROM failing`);
  return {
    later: rows.filter((row) => row.what !== 'endpoint').map((row) => ({ id: Number(row.id), wait: Number(row.wait) })),
    switchOff: rows
      .filter((row) => row.what === 'endpoint')
      .map((row) => ({ id: Number(row.id), installationId: Number(row.installation_id) })),
  };
}

/** Switches off an endpoint that failed for a day: an `updated` event of it, as any change; a batch of one (no connection opened). */
async function switchOff(db: Database, endpoint: { id: number; installationId: number }): Promise<void> {
  const watched = {
    enabled: webhookEndpoints.enabled,
    disabledAt: webhookEndpointsResource.fields.disabledAt!.output!,
  };
  const target = {
    table: webhookEndpoints,
    type: webhookEndpointsResource.type,
    where: and(eq(webhookEndpoints.id, endpoint.id), eq(webhookEndpoints.enabled, true))!,
  };
  await db.batch([
    updateStatement(
      db.http,
      systemActor(endpoint.installationId, 'webhooks'),
      target,
      { enabled: false, disabledAt: sql`now()` },
      watched,
    ),
  ]);
}

/** What a message's tries share: the records the new deliveries' bodies carry (read alongside the deliveries), and the outbound fetch's state; and those dropped before the tries. */
interface Context {
  ahead: ReadAhead;
  shared: ReturnType<typeof sharedByTries>;
  dropped: Delivery[];
}

/**
 * Settles the deliveries before the lease: those of a switched-off or deleted endpoint fail (one
 * not decided yet was never a delivery to tell of: it goes); the write's deliveries are decided
 * (`decide.ts`: their webhook events and body; a waiting one too, its body the nearer its event),
 * the due ones held as they are, and those with nothing to tell dropped. A delivery waiting behind
 * an earlier one of its ticket to its endpoint is left: that one, once done, sends it.
 */
async function prepare(db: Database, found: Delivery[], isDue: (d: Delivery) => boolean, context: Context) {
  const closed = found.filter((d) => !d.open);
  if (closed.length) {
    await db.http
      .execute(sql`WITH gone AS (DELETE FROM webhook_deliveries WHERE id IN ${intList(closed.map((d) => d.id))} AND event = ${UNDECIDED} AND status = 'pending')
      UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = 'the endpoint is switched off or deleted', updated_at = now()
       WHERE id IN ${intList(closed.map((d) => d.id))} AND status = 'pending' AND event <> ${UNDECIDED}`);
  }
  const open = found.filter((d) => d.open);
  const ready = (d: Delivery) => !d.waiting && isDue(d);
  const toDecide = open.filter((d) => d.event === UNDECIDED);
  const decisions = toDecide.length
    ? await decideDeliveries(
        db,
        toDecide.map((d) => ({ id: d.id, ticketId: d.ticketId, facts: d.undecided, hold: ready(d) })),
        LEASE_SECONDS,
        context.ahead,
      )
    : new Map();
  for (const d of toDecide) if (decisions.has(d.id)) Object.assign(d, decisions.get(d.id));
  // the one waiting behind a delivery dropped goes once this message's outcome is written
  context.dropped.push(...toDecide.filter((d) => ready(d) && decisions.get(d.id) === DROPPED));
  return {
    // one dropped, or decided by another message, is not this one's to try
    candidates: open.filter((d) => !d.waiting && !(isDue(d) && d.event === UNDECIDED)),
    held: new Set<number>(decisions.keys()),
  };
}

/**
 * The outbox of webhook deliveries (`src/jobs/outbox.ts`), tried by the queue consumer of
 * `webhooks.deliver`: one try of each delivery a message names, side by side. A delivery waits
 * its turn behind an earlier one of the same ticket to the same endpoint (so a ticket's events
 * arrive in order: that one, once done, sends it), is held while it is tried, is posted with its
 * signatures, and its outcome recorded. A delivery the write made is decided first. A failure
 * comes back on the queue after the backoff, until a day has passed; then the delivery is failed.
 * A message costs three exchanges with the database however many deliveries it names (the write
 * sends one for all of its events'): its read, the decisions and holds, and after the tries the
 * outcomes with the deliveries to send next.
 */
const webhookDeliveries: Outbox<Delivery, Attempt, Context> = {
  table: 'webhook_deliveries',
  pending: 'pending',
  leaseSeconds: LEASE_SECONDS,
  maxAMessage: MAX_DELIVERIES_A_MESSAGE,
  idsIn: (message) => (Array.isArray(message.deliveryIds) ? message.deliveryIds : message.deliveryId),
  read: async (db, ids, message, env) => {
    // the records the new deliveries' bodies carry, read while the deliveries are
    const ahead = readAhead(db, message);
    return { rows: await readDeliveries(db, ids), context: { ahead, shared: sharedByTries(env), dropped: [] } };
  },
  prepare,
  attempt: (delivery, _env, context) => attemptOf(delivery, context.shared),
  record: async (db, env, tries, context) => {
    if (tries.length === 0 && context.dropped.length === 0) return [];
    const outcome = await record(
      db,
      env,
      tries.map(({ row, outcome }) => ({ delivery: row, attempt: outcome })),
      context.dropped,
    );
    for (const endpoint of outcome.switchOff) await switchOff(db, endpoint);
    return outcome.later;
  },
  queue: queueDeliveries,
  // a delivery waiting behind an earlier one of its ticket is not lost: the earlier one sends it when done
  sweepOnly: sql`NOT (d.ticket_id IS NOT NULL AND EXISTS (SELECT 1 FROM webhook_deliveries e
    WHERE e.endpoint_id = d.endpoint_id AND e.ticket_id = d.ticket_id AND e.status = 'pending' AND ${orderKey('e')} < ${orderKey('d')}))`,
};

export const deliverWebhook = outboxConsumer(webhookDeliveries);
export const sweepDeliveries = outboxSweep(webhookDeliveries);
