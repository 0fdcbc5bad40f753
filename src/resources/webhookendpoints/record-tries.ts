import { sql } from 'drizzle-orm';
import type { Env } from '../../app-env';
import type { Database } from '../../db/client';
import { backoffSeconds } from '../../jobs/backoff';
import { UNDECIDED, type Decision } from './decide';

/** Failures of an endpoint for this long switch it off. */
const FAILING_FOR_MS = 24 * 3_600_000;

/** One POST's outcome. */
export interface Attempt {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

/** A delivery tried: its row's id, endpoint and attempts so far, and the try's outcome. */
export interface Tried {
  delivery: { id: number; endpointId: number; attempts: number };
  attempt: Attempt;
}

/**
 * Records what a message did, in one statement, after its POSTs:
 * - the decisions it made (`decide.ts`): a delivery that is none of what its endpoint wants is
 *   dropped, one that is several becomes the first (its event and body written, with its try's
 *   outcome where it was tried) and the others new deliveries right behind it in its ticket's
 *   order (`turn`); a delivery another message decided first keeps that decision;
 * - each try: delivered, pending again after its backoff, or failed once its day is over; each
 *   endpoint failing since its first failure, or not failing once one try to it succeeded.
 *
 * Answers the deliveries to try again (with their waits) and the endpoints failing for a day
 * (since before this statement) and still on.
 */
export async function recordTries(db: Database, env: Env, tries: readonly Tried[], decisions: ReadonlyMap<number, Decision>) {
  const base = Number(env.WEBHOOK_RETRY_BASE_SECONDS) || 10;
  const outcomes = tries.map(({ delivery, attempt }) => ({
    id: delivery.id,
    endpoint_id: delivery.endpointId,
    attempts: delivery.attempts + 1,
    status_code: attempt.statusCode,
    latency_ms: attempt.latencyMs,
    error: attempt.error,
    ok: attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300,
    wait: backoffSeconds(delivery.attempts + 1, base),
  }));
  const decided = [...decisions].map(([id, { codes, payloads }]) => ({ id, codes, payloads }));
  const { rows } = await db.http.execute(sql`
    WITH outcome AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(outcomes)}::jsonb)
        AS o(id int, endpoint_id int, attempts int, status_code int, latency_ms int, error text, ok boolean, wait int)),
    decision AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(decided)}::jsonb) AS x(id int, codes jsonb, payloads jsonb)),
    dropped AS (
      DELETE FROM webhook_deliveries d USING decision x
       WHERE d.id = x.id AND d.event = ${UNDECIDED} AND jsonb_array_length(x.codes) = 0 RETURNING d.id),
    -- decided and not tried (one waiting its turn): its event and body
    decided AS (
      UPDATE webhook_deliveries d SET event = x.codes->>0, payload = x.payloads->>0, updated_at = now()
        FROM decision x
       WHERE d.id = x.id AND d.event = ${UNDECIDED} AND jsonb_array_length(x.codes) > 0 AND NOT EXISTS (SELECT 1 FROM outcome o WHERE o.id = d.id)
      RETURNING d.id),
    tried AS (
      UPDATE webhook_deliveries d SET attempts = o.attempts, status_code = o.status_code, latency_ms = o.latency_ms, last_error = o.error,
             last_attempt_at = now(), updated_at = now(),
             event = CASE WHEN d.event = ${UNDECIDED} AND x.id IS NOT NULL THEN x.codes->>0 ELSE d.event END,
             payload = CASE WHEN d.event = ${UNDECIDED} AND x.id IS NOT NULL THEN x.payloads->>0 ELSE d.payload END,
             status = CASE WHEN o.ok THEN 'delivered' WHEN d.retry_until <= now() THEN 'failed' ELSE 'pending' END,
             delivered_at = CASE WHEN o.ok THEN now() ELSE d.delivered_at END,
             next_attempt_at = CASE WHEN o.ok OR d.retry_until <= now() THEN NULL ELSE now() + make_interval(secs => o.wait) END
        FROM outcome o LEFT JOIN decision x ON x.id = o.id WHERE d.id = o.id
      RETURNING d.id, d.status, o.wait),
    -- a delivery that is several webhook events: the others right behind it (another message's same ones are the same rows: the unique key)
    more AS (
      INSERT INTO webhook_deliveries (installation_id, endpoint_id, event_id, event, delivery_id, ticket_id, payload, next_attempt_at, turn)
      SELECT d.installation_id, d.endpoint_id, d.event_id, x.codes->>n, gen_random_uuid()::text, d.ticket_id, x.payloads->>n, now(), d.id
        FROM decision x JOIN webhook_deliveries d ON d.id = x.id CROSS JOIN LATERAL generate_series(1, jsonb_array_length(x.codes) - 1) AS n
       WHERE x.id IN (SELECT id FROM decided UNION ALL SELECT id FROM tried)
       ORDER BY d.id, n
      ON CONFLICT DO NOTHING RETURNING id),
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
       WHERE NOT x.ok AND e.enabled AND e.failing_since <= now() - make_interval(secs => ${FAILING_FOR_MS / 1000}))
    SELECT 'delivery' AS what, id, status, wait, NULL::int AS installation_id FROM tried
    UNION ALL SELECT 'endpoint', id, NULL, NULL, installation_id FROM failing`);
  return {
    again: rows.filter((row) => row.what === 'delivery' && row.status === 'pending').map((row) => ({ id: Number(row.id), wait: Number(row.wait) })),
    switchOff: rows.filter((row) => row.what === 'endpoint').map((row) => ({ id: Number(row.id), installationId: Number(row.installation_id) })),
  };
}
