import { and, eq, sql } from 'drizzle-orm';
import type { Env } from '../../app-env';
import { intList } from '../../db/sql-values';
import { systemActor } from '../../auth/principal';
import { openDatabase, type Database } from '../../db/client';
import { webhookEndpoints } from '../../db/schema';
import { updateStatement } from '../../engine';
import { announceEvents } from '../../events/announce';
import { configureEvents } from '../../events/record-events';
import type { JobMessage } from '../../jobs/job-message';
import { decryptToken, webhookTokenContext } from '../../lib/crypto';
import { destinationRules, refusedDestination } from '../../lib/outbound/destination';
import { hmacHex } from '../../lib/webhook-signature';
import { decideDeliveries, readAhead, UNDECIDED, undecidedColumn, type Decision, type UndecidedFacts } from './decide';
import { recordTries, type Attempt } from './record-tries';
import { isRowId, MAX_DELIVERIES_A_MESSAGE, sendDeliveries, sendLater } from './delivery-message';
import { webhookEndpointsResource } from './webhookendpoints.resource';

/** How long a receiver has to answer. */
const TIMEOUT_MS = 10_000;
/** How long a try holds its delivery: another message for it waits, and the cron takes it back after. */
const LEASE_SECONDS = 30;

/**
 * A try's headers. `X-Desk-Signature` is the platform's, over the body alone, as its clients
 * verify it: it cannot say when the delivery was sent. `X-Desk-Timestamp-Signature` covers the
 * try's time and the delivery id too (`<timestamp>.<delivery id>.<body>`): the one receivers are
 * told to verify (docs/resources/webhookendpoints.md), which refuses a capture played again later,
 * or within the window under another delivery id.
 */
const headersFor = async (token: string, event: string, deliveryId: string, body: string) => {
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'helpdesk-webhooks/1',
    'x-desk-event': event,
    'x-desk-delivery': deliveryId,
    'x-desk-signature': await hmacHex(token, body),
    'x-desk-timestamp': String(timestamp),
    'x-desk-timestamp-signature': await hmacHex(token, `${timestamp}.${deliveryId}.${body}`),
  };
};

/** One POST of the body to an address already checked; never follows a redirect (it could lead anywhere). */
async function post(url: string, headers: Record<string, string>, body: string): Promise<Attempt> {
  const started = Date.now();
  try {
    const response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
    await response.body?.cancel();
    return { statusCode: response.status, latencyMs: Date.now() - started, error: null };
  } catch (error) {
    const timedOut = (error as Error)?.name === 'TimeoutError' || (error as Error)?.name === 'AbortError';
    return { statusCode: null, latencyMs: Date.now() - started, error: timedOut ? `no answer in ${TIMEOUT_MS / 1000} s` : 'could not connect' };
  }
}

/** What a message's tries share: each endpoint's token read, and each address checked, once. */
function perMessage(env: Env) {
  const tokens = new Map<number, Promise<string | undefined>>();
  const refusals = new Map<string, Promise<string | undefined>>();
  return {
    token: (d: Delivery) => {
      if (!tokens.has(d.endpointId)) tokens.set(d.endpointId, decryptToken(d.token, env.PM_TOKEN_KEY, webhookTokenContext(d.installationId)));
      return tokens.get(d.endpointId)!;
    },
    refusal: (url: string) => {
      if (!refusals.has(url)) refusals.set(url, refusedDestination(url, destinationRules(env), AbortSignal.timeout(5_000)));
      return refusals.get(url)!;
    },
  };
}

/** One try of a delivery: its address checked, then the body posted with its signatures. */
async function attemptOf(delivery: Delivery, shared: ReturnType<typeof perMessage>): Promise<Attempt> {
  const token = await shared.token(delivery);
  if (token === undefined) return { statusCode: null, latencyMs: 0, error: 'the signing token cannot be read (PM_TOKEN_KEY changed)' };
  const refused = await shared.refusal(delivery.url);
  if (refused) return { statusCode: null, latencyMs: 0, error: `refused: ${refused}` };
  return post(delivery.url, await headersFor(token, delivery.event, delivery.deliveryId, delivery.payload), delivery.payload);
}

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
  /** held by this message (`readAndHold`): tried by it now */
  held: boolean;
  /** what deciding it needs, while the write's fan-out has not decided it (`decide.ts`) */
  undecided: UndecidedFacts | null;
}

/** A delivery's place in its ticket's order to its endpoint (SQL, a row value over the alias): by its turn, then its id. */
const orderKey = (alias: string) => sql.raw(`(coalesce(${alias}.turn, ${alias}.id), ${alias}.id)`);

/** SQL: the delivery `d` waits behind an earlier pending one of its ticket to its endpoint. */
const waitingSql = sql`(d.ticket_id IS NOT NULL AND EXISTS (SELECT 1 FROM webhook_deliveries p
    WHERE p.endpoint_id = d.endpoint_id AND p.ticket_id = d.ticket_id AND p.status = 'pending' AND ${orderKey('p')} < ${orderKey('d')}))`;

/**
 * The pending deliveries of `ids` with their endpoints, in id order, in one statement that holds
 * (leases, `LEASE_SECONDS`) those this message tries now: due, not waiting their turn, to an
 * endpoint that is on. A delivery another message holds, or took first, is not `held` here.
 */
async function readAndHold(db: Database, ids: readonly number[]): Promise<Delivery[]> {
  const { rows } = await db.http.execute(sql`
    WITH held AS (
      UPDATE webhook_deliveries d SET next_attempt_at = now() + make_interval(secs => ${LEASE_SECONDS}::int)
        FROM webhook_endpoints e
       WHERE d.id IN ${intList(ids)} AND d.status = 'pending' AND d.next_attempt_at <= now() + interval '1 second'
         AND e.id = d.endpoint_id AND e.enabled AND e.state = 'active' AND NOT ${waitingSql}
      RETURNING d.id)
    SELECT d.id, d.installation_id AS "installationId", d.endpoint_id AS "endpointId", d.event, d.delivery_id AS "deliveryId", d.ticket_id AS "ticketId", d.turn,
           d.payload, d.attempts, extract(epoch FROM d.next_attempt_at - now())::float8 * 1000 AS "dueIn",
           e.url, e.token, e.enabled AND e.state = 'active' AS open, ${waitingSql} AS waiting, d.id IN (SELECT id FROM held) AS held,
           ${undecidedColumn} AS undecided
      FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
     WHERE d.id IN ${intList(ids)} AND d.status = 'pending' ORDER BY d.id`);
  return rows.map((row) => ({ ...(row as unknown as Delivery), id: Number(row.id), endpointId: Number(row.endpointId), installationId: Number(row.installationId), attempts: Number(row.attempts), dueIn: Number(row.dueIn) }));
}

/** Switches off an endpoint that failed for a day: an `updated` event of it, as any change; a batch of one (no connection opened). */
async function switchOff(db: Database, endpoint: { id: number; installationId: number }): Promise<void> {
  const watched = { enabled: webhookEndpoints.enabled, disabledAt: webhookEndpointsResource.fields.disabledAt!.output! };
  const target = { table: webhookEndpoints, type: webhookEndpointsResource.type, where: and(eq(webhookEndpoints.id, endpoint.id), eq(webhookEndpoints.enabled, true))! };
  await db.batch([updateStatement(db.http, systemActor(endpoint.installationId, 'webhooks'), target, { enabled: false, disabledAt: sql`now()` }, watched)]);
}

/** The ids a message names: `deliveryIds` (a fan-out's, a batch), or one `deliveryId`. */
function idsOf(message: JobMessage): number[] {
  const ids = Array.isArray(message.deliveryIds) ? message.deliveryIds : [message.deliveryId];
  return [...new Set(ids.map(Number).filter(isRowId))].slice(0, MAX_DELIVERIES_A_MESSAGE);
}

/**
 * The queue consumer of `webhooks.deliver`: one try of each delivery a message names, side by
 * side. A delivery waits its turn behind an earlier one of the same ticket to the same endpoint
 * (so a ticket's events arrive in order: that one, once done, sends it); one due is held by the
 * read itself (a second message for it finds it held and leaves it), posted with its signatures,
 * and its outcome recorded. A delivery the write made is decided in the Worker first (`decide.ts`:
 * its webhook events and its body), and the decision written with the tries' outcomes. So a
 * message costs one exchange before its POSTs (the records its bodies carry read beside it) and
 * one after, however many deliveries it names: the write sends one for all of its events'. A
 * failure comes back on the queue after the backoff, until a day has passed; then the delivery is
 * failed.
 */
export async function deliverWebhook(message: JobMessage, env: Env): Promise<void> {
  const ids = idsOf(message);
  if (ids.length === 0) return;
  configureEvents(env);
  const db = openDatabase(env);
  try {
    // the records the new deliveries' bodies carry, read while the deliveries are
    const ahead = readAhead(db, message);
    const found = await readAndHold(db, ids);
    const later: Array<{ id: number; wait: number }> = [];
    const closed = found.filter((d) => !d.open);
    if (closed.length) {
      // one not decided yet was never a delivery to tell of: it goes
      await db.http.execute(sql`WITH gone AS (DELETE FROM webhook_deliveries WHERE id IN ${intList(closed.map((d) => d.id))} AND event = ${UNDECIDED} AND status = 'pending')
        UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = 'the endpoint is switched off or deleted', updated_at = now()
         WHERE id IN ${intList(closed.map((d) => d.id))} AND status = 'pending' AND event <> ${UNDECIDED}`);
    }
    const open = found.filter((d) => d.open);
    for (const d of open) if (!d.held && !d.waiting && d.dueIn > 1000) later.push({ id: d.id, wait: Math.ceil(d.dueIn / 1000) });
    // the write's deliveries this message holds decided, and those waiting their turn (their bodies the nearer their events);
    // one another message holds is that one's to decide
    const toDecide = open.filter((d) => d.event === UNDECIDED && (d.held || d.waiting));
    const decisions = toDecide.length ? await decideDeliveries(db, toDecide.map((d) => ({ id: d.id, ticketId: d.ticketId, facts: d.undecided })), ahead) : new Map<number, Decision>();
    for (const d of toDecide) {
      const decision = decisions.get(d.id)!;
      if (decision.codes.length) Object.assign(d, { event: decision.codes[0], payload: decision.payloads[0] });
    }
    const held = open.filter((d) => d.held);
    const shared = perMessage(env);
    const tries = await Promise.all(held.filter((d) => d.event !== UNDECIDED).map(async (delivery) => ({ delivery, attempt: await attemptOf(delivery, shared) })));
    if (tries.length || decisions.size) {
      const outcome = await recordTries(db, env, tries, decisions);
      later.push(...outcome.again);
      for (const endpoint of outcome.switchOff) await switchOff(db, endpoint);
      await db.afterBatches();
      await announceEvents(env, db);
      // done with (tried, or dropped undecided): each ticket's next delivery to the endpoint, which may be waiting on one of these, goes now
      const again = new Set(outcome.again.map((d) => d.id));
      const done = held.filter((d) => d.ticketId !== null && !again.has(d.id));
      if (done.length) {
        const { rows: next } = await db.http.execute(sql`
          SELECT DISTINCT ON (d.endpoint_id, d.ticket_id) d.id
            FROM webhook_deliveries d
            JOIN jsonb_to_recordset(${JSON.stringify(done.map((d) => ({ endpoint_id: d.endpointId, ticket_id: d.ticketId, id: d.id, turn: d.turn })))}::jsonb) AS x(endpoint_id int, ticket_id int, id int, turn int)
              ON d.endpoint_id = x.endpoint_id AND d.ticket_id = x.ticket_id AND ${orderKey('d')} > (coalesce(x.turn, x.id), x.id)
           WHERE d.status = 'pending' ORDER BY d.endpoint_id, d.ticket_id, coalesce(d.turn, d.id), d.id`);
        if (next.length) await sendDeliveries(env, next.map((row) => Number(row.id)));
      }
    }
    await sendLater(env, later);
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
               WHERE e.endpoint_id = d.endpoint_id AND e.ticket_id = d.ticket_id AND e.status = 'pending' AND ${orderKey('e')} < ${orderKey('d')}))
       ORDER BY d.next_attempt_at LIMIT ${SWEEP_BATCH}`);
    await sendDeliveries(env, rows.map((row) => Number(row.id)));
  } finally {
    await db.close();
  }
}
