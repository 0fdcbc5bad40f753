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
  readAhead,
  UNDECIDED,
  undecidedColumn,
  type Decision,
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
  /** held by this message's read, to be tried now */
  held: boolean;
  /** what deciding it needs, while the write's fan-out has not decided it (`decide.ts`) */
  undecided: UndecidedFacts | null;
}

/** A delivery's place in its ticket's order to its endpoint (SQL, a row value over the alias): by its turn, then its id. */
const orderKey = (alias: string) => sql.raw(`(coalesce(${alias}.turn, ${alias}.id), ${alias}.id)`);

/** The delivery `d` waits: an earlier one of its ticket to its endpoint is pending (SQL). */
const waiting = sql`(d.ticket_id IS NOT NULL AND EXISTS (SELECT 1 FROM webhook_deliveries p
  WHERE p.endpoint_id = d.endpoint_id AND p.ticket_id = d.ticket_id AND p.status = 'pending' AND ${orderKey('p')} < ${orderKey('d')}))`;

/**
 * The deliveries of `ids` with their endpoints, in id order, in one statement that also holds
 * those to try now (due, not waiting, their endpoint on) for `LEASE_SECONDS`: a second message
 * for one finds it held and leaves it. Sent in one batch with the reads ahead of the records the
 * new deliveries' bodies carry (answered into `ahead`).
 */
async function readDeliveries(db: Database, ids: readonly number[], ahead: ReadAhead): Promise<Delivery[]> {
  const reads = [...ahead.values()];
  const [rows, ...answers] = await db.batch([
    sql`
    WITH held AS (
      UPDATE webhook_deliveries d SET next_attempt_at = now() + make_interval(secs => ${LEASE_SECONDS}::int)
        FROM webhook_endpoints e
       WHERE d.id IN ${intList(ids)} AND d.status = 'pending' AND e.id = d.endpoint_id AND e.enabled AND e.state = 'active'
         AND d.next_attempt_at <= now() + interval '1 second' AND NOT ${waiting}
      RETURNING d.id)
    SELECT d.id, d.installation_id AS "installationId", d.endpoint_id AS "endpointId", d.event, d.delivery_id AS "deliveryId", d.ticket_id AS "ticketId", d.turn,
           d.payload, d.attempts, extract(epoch FROM d.next_attempt_at - now())::float8 * 1000 AS "dueIn",
           e.url, e.token, e.enabled AND e.state = 'active' AS open, ${waiting} AS waiting,
           d.id IN (SELECT id FROM held) AS held, ${undecidedColumn} AS undecided
      FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
     WHERE d.id IN ${intList(ids)} AND d.status = 'pending' ORDER BY d.id`,
    ...reads.flatMap(({ read }) => read.statements),
  ]);
  let next = 0;
  for (const entry of reads) {
    const count = entry.read.statements.length;
    entry.records = entry.read.result(answers.slice(next, next + count));
    next += count;
  }
  return rows!.map((row) => ({
    ...(row as unknown as Delivery),
    id: Number(row.id),
    endpointId: Number(row.endpointId),
    installationId: Number(row.installationId),
    attempts: Number(row.attempts),
    dueIn: Number(row.dueIn),
  }));
}

/** One row the record statement writes: a try's outcome, the decision of one decided now, or both. */
interface Written {
  id: number;
  endpoint_id: number;
  tried: boolean;
  attempts: number | null;
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
  ok: boolean | null;
  wait: number | null;
  /** null: decided before; [] dropped */
  codes: string[] | null;
  payloads: string[] | null;
}

/**
 * Writes the message's outcome in one statement, after its tries: the deliveries decided now
 * (dropped, or their webhook event and body, with a delivery behind each further event); each
 * try delivered, pending again after its backoff, or failed once its day is over; each endpoint
 * failing since its first failure, or not failing once one try to it succeeded. Answers the
 * deliveries to try again (with their waits), those to send now (the first pending one behind
 * each done with, in its ticket's order to its endpoint), and the endpoints failing for a day
 * (since before this statement) and still on.
 */
async function record(db: Database, written: Written[]) {
  const { rows } = await db.http.execute(sql`
    WITH x AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(written)}::jsonb)
        AS x(id int, endpoint_id int, tried boolean, attempts int, status_code int, latency_ms int, error text, ok boolean, wait int, codes jsonb, payloads jsonb)),
    dropped AS (
      DELETE FROM webhook_deliveries d USING x
       WHERE d.id = x.id AND d.event = ${UNDECIDED} AND d.status = 'pending' AND jsonb_array_length(x.codes) = 0
      RETURNING d.id, d.endpoint_id, d.ticket_id, d.turn),
    -- one decided by another message meanwhile keeps that decision (no delivery is decided twice)
    written AS (
      UPDATE webhook_deliveries d
         SET event = CASE WHEN d.event = ${UNDECIDED} AND x.codes IS NOT NULL THEN x.codes->>0 ELSE d.event END,
             payload = CASE WHEN d.event = ${UNDECIDED} AND x.codes IS NOT NULL THEN x.payloads->>0 ELSE d.payload END,
             updated_at = now(),
             attempts = CASE WHEN x.tried THEN x.attempts ELSE d.attempts END,
             status_code = CASE WHEN x.tried THEN x.status_code ELSE d.status_code END,
             latency_ms = CASE WHEN x.tried THEN x.latency_ms ELSE d.latency_ms END,
             last_error = CASE WHEN x.tried THEN x.error ELSE d.last_error END,
             last_attempt_at = CASE WHEN x.tried THEN now() ELSE d.last_attempt_at END,
             status = CASE WHEN NOT x.tried THEN d.status WHEN x.ok THEN 'delivered' WHEN d.retry_until <= now() THEN 'failed' ELSE 'pending' END,
             delivered_at = CASE WHEN x.tried AND x.ok THEN now() ELSE d.delivered_at END,
             next_attempt_at = CASE WHEN NOT x.tried THEN d.next_attempt_at
                                    WHEN x.ok OR d.retry_until <= now() THEN NULL ELSE now() + make_interval(secs => x.wait) END
        FROM x JOIN webhook_deliveries b ON b.id = x.id
       WHERE d.id = x.id AND (x.tried OR (d.event = ${UNDECIDED} AND d.status = 'pending' AND jsonb_array_length(x.codes) > 0))
      RETURNING d.id, d.installation_id, d.endpoint_id, d.event_id, d.ticket_id, d.turn, d.status, x.tried, x.wait, x.codes, x.payloads,
                b.event = ${UNDECIDED} AND x.codes IS NOT NULL AS decided),
    more AS (
      INSERT INTO webhook_deliveries (installation_id, endpoint_id, event_id, event, delivery_id, ticket_id, payload, next_attempt_at, turn)
      SELECT w.installation_id, w.endpoint_id, w.event_id, w.codes->>n, gen_random_uuid()::text, w.ticket_id, w.payloads->>n, now(), w.id
        FROM written w CROSS JOIN LATERAL generate_series(1, jsonb_array_length(w.codes) - 1) AS n
       WHERE w.decided
       ORDER BY w.id, n
      ON CONFLICT DO NOTHING RETURNING id, turn),
    per_endpoint AS (SELECT endpoint_id, bool_or(ok) AS ok FROM x WHERE x.tried GROUP BY endpoint_id),
    -- only an endpoint whose state changes is written: every try of a healthy one would otherwise
    -- lock and rewrite its row, and the messages tried side by side would queue (and deadlock) on it
    marked AS (
      UPDATE webhook_endpoints e SET failing_since = CASE WHEN p.ok THEN NULL ELSE now() END
        FROM per_endpoint p
       WHERE e.id = p.endpoint_id AND (p.ok = (e.failing_since IS NOT NULL))
      RETURNING e.id),
    failing AS (
      SELECT e.id, e.installation_id FROM webhook_endpoints e JOIN per_endpoint p ON p.endpoint_id = e.id
       WHERE NOT p.ok AND e.enabled AND e.failing_since <= now() - make_interval(secs => ${FAILING_FOR_MS / 1000})),
    done AS (
      SELECT id, endpoint_id, ticket_id, turn FROM written WHERE tried AND status <> 'pending' AND ticket_id IS NOT NULL
      UNION ALL SELECT id, endpoint_id, ticket_id, turn FROM dropped WHERE ticket_id IS NOT NULL),
    -- a delivery done with that grew into more is followed by the first of them
    behind AS (SELECT DISTINCT ON (m.turn) m.id, m.turn FROM more m JOIN done o ON o.id = m.turn ORDER BY m.turn, m.id),
    after AS (
      SELECT DISTINCT ON (d.endpoint_id, d.ticket_id) d.id
        FROM done o JOIN webhook_deliveries d
          ON d.endpoint_id = o.endpoint_id AND d.ticket_id = o.ticket_id AND ${orderKey('d')} > (coalesce(o.turn, o.id), o.id)
       WHERE d.status = 'pending' AND d.id NOT IN (SELECT id FROM dropped) AND NOT EXISTS (SELECT 1 FROM behind WHERE behind.turn = o.id)
       ORDER BY d.endpoint_id, d.ticket_id, coalesce(d.turn, d.id), d.id)
    SELECT 'again' AS what, id, wait, NULL::int AS installation_id FROM written WHERE tried AND status = 'pending'
    UNION ALL SELECT 'next', id, 0, NULL FROM behind
    UNION ALL SELECT 'next', id, 0, NULL FROM after
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

/** What a message's tries share: the records the new deliveries' bodies carry (read alongside the deliveries), the outbound fetch's state, and the deliveries decided now. */
interface Context {
  ahead: ReadAhead;
  shared: ReturnType<typeof sharedByTries>;
  decided: Map<number, Decision>;
  /** decided now and not tried (dropped, or waiting their turn): written with the tries */
  untried: Delivery[];
}

/**
 * Settles the deliveries before the tries: those of a switched-off or deleted endpoint fail (one
 * not decided yet was never a delivery to tell of: it goes); the write's deliveries this message
 * holds are decided (`decide.ts`), and so is one waiting its turn (its body the nearer its event),
 * all written with the tries. A held one with nothing to tell is not tried (it is dropped then).
 * A delivery waiting behind an earlier one of its ticket to its endpoint is left: that one, once
 * done, sends it; so is one due that another message holds.
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
  const toDecide = open.filter((d) => d.event === UNDECIDED && (d.held || d.waiting));
  if (toDecide.length)
    context.decided = await decideDeliveries(
      db,
      toDecide.map((d) => ({ id: d.id, ticketId: d.ticketId, facts: d.undecided })),
      context.ahead,
    );
  const dropped = (d: Delivery) => context.decided.get(d.id)?.codes.length === 0;
  for (const d of toDecide) {
    const decision = context.decided.get(d.id)!;
    if (d.held && !dropped(d)) Object.assign(d, { event: decision.codes[0], payload: decision.payloads[0] });
    else context.untried.push(d);
  }
  return {
    candidates: open.filter((d) => (d.held ? !dropped(d) : !d.waiting && !isDue(d))),
    held: new Set(open.filter((d) => d.held).map((d) => d.id)),
  };
}

/** What the record statement writes for the tries and the deliveries decided now. */
function writtenOf(env: Env, tries: ReadonlyArray<{ row: Delivery; outcome: Attempt }>, context: Context): Written[] {
  const base = Number(env.WEBHOOK_RETRY_BASE_SECONDS) || 10;
  const decision = (id: number) => context.decided.get(id) ?? { codes: null, payloads: null };
  return [
    ...tries.map(({ row, outcome }) => ({
      id: row.id,
      endpoint_id: row.endpointId,
      tried: true,
      attempts: row.attempts + 1,
      status_code: outcome.statusCode,
      latency_ms: outcome.latencyMs,
      error: outcome.error,
      ok: delivered(outcome),
      wait: backoffSeconds(row.attempts + 1, base),
      ...decision(row.id),
    })),
    ...context.untried.map((row) => ({
      id: row.id,
      endpoint_id: row.endpointId,
      tried: false,
      attempts: null,
      status_code: null,
      latency_ms: null,
      error: null,
      ok: null,
      wait: null,
      ...decision(row.id),
    })),
  ];
}

/**
 * The outbox of webhook deliveries (`src/jobs/outbox.ts`), tried by the queue consumer of
 * `webhooks.deliver`: one try of each delivery a message names, side by side. A delivery waits
 * its turn behind an earlier one of the same ticket to the same endpoint (so a ticket's events
 * arrive in order: that one, once done, sends it), is held while it is tried, is posted with its
 * signatures, and its outcome recorded. A delivery the write made is decided first. A failure
 * comes back on the queue after the backoff, until a day has passed; then the delivery is failed.
 * A message costs two statements however many deliveries it names (the write sends one for all
 * of its events'): one reads and holds them, before the tries; one writes what became of them.
 */
const webhookDeliveries: Outbox<Delivery, Attempt, Context> = {
  table: 'webhook_deliveries',
  pending: 'pending',
  leaseSeconds: LEASE_SECONDS,
  maxAMessage: MAX_DELIVERIES_A_MESSAGE,
  idsIn: (message) => (Array.isArray(message.deliveryIds) ? message.deliveryIds : message.deliveryId),
  read: async (db, ids, message, env) => {
    const ahead = readAhead(message);
    return {
      rows: await readDeliveries(db, ids, ahead),
      context: { ahead, shared: sharedByTries(env), decided: new Map(), untried: [] },
    };
  },
  prepare,
  attempt: (delivery, _env, context) => attemptOf(delivery, context.shared),
  record: async (db, env, tries, context) => {
    const written = writtenOf(env, tries, context);
    if (written.length === 0) return [];
    const outcome = await record(db, written);
    for (const endpoint of outcome.switchOff) await switchOff(db, endpoint);
    return outcome.later;
  },
  queue: queueDeliveries,
  // a delivery waiting behind an earlier one of its ticket is not lost: the earlier one sends it when done
  sweepOnly: sql`NOT ${waiting}`,
};

export const deliverWebhook = outboxConsumer(webhookDeliveries);
export const sweepDeliveries = outboxSweep(webhookDeliveries);
