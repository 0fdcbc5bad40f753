import { sqlState } from '../db/errors';

/** Seconds a client is asked to wait before trying again when the database does not answer (as `/health` says). */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * SQLSTATEs that say the database cannot serve now, whatever the request: class 08 (connection
 * exception), 57P01 to 57P03 (the server shutting down, or not accepting connections yet) and
 * class 53 (insufficient resources: too many connections, out of memory or disk).
 */
function unavailableState(code: string | undefined): boolean {
  return (
    code !== undefined &&
    (code.startsWith('08') || code.startsWith('53') || code === '57P01' || code === '57P02' || code === '57P03')
  );
}

/**
 * What the Neon driver throws when it cannot reach the database at all: its HTTP mode wraps a
 * failed fetch as `Error connecting to database: ...` (the fetch's error as `sourceError`) and
 * names a gateway's refusal `Server error (HTTP status 502|503|504)`; its WebSocket mode (the
 * Pool, for transactions) rejects with the socket's own `error` event when it cannot open it
 * (`isSocketError`), and pg reports a socket lost later as the connection's early end.
 */
const DRIVER_CONNECTION_FAILURE = [
  /^Error connecting to database\b/,
  /^Server error \(HTTP status 50[234]\)/,
  /\bWebSocket\b.*\b(error|closed?|failed)\b/i,
  /^Connection terminated\b/,
  /\bECONNREFUSED\b|\bECONNRESET\b|\bETIMEDOUT\b/,
];

/** A WebSocket's `error` event: only the database driver opens WebSockets from a request. */
function isSocketError(value: object): boolean {
  return typeof Event !== 'undefined' && value instanceof Event && value.type === 'error';
}

/** Whether a thrown error (wrapped by Drizzle or `asError`, or not) says the database does not answer: a 503, not a 500. */
export function databaseUnavailable(error: unknown): boolean {
  if (unavailableState(sqlState(error).code)) return true;
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    if (isSocketError(current)) return true;
    const candidate = current as { message?: unknown; cause?: unknown; sourceError?: unknown };
    if (
      typeof candidate.message === 'string' &&
      DRIVER_CONNECTION_FAILURE.some((pattern) => pattern.test(candidate.message as string))
    )
      return true;
    current = candidate.cause ?? candidate.sourceError;
  }
  return false;
}
