import type { Env } from '../../app-env';
import { decryptToken, webhookTokenContext } from '../../lib/crypto';
import { destinationRules, refusedDestination } from '../../lib/outbound/destination';
import { hmacHex } from '../../lib/webhook-signature';

/** How long a receiver has to answer. */
export const TIMEOUT_MS = 10_000;

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

/** How one try went: the receiver's status (null: no answer), the time to it, and why there was none. */
export interface Attempt {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

/** A 2xx answer delivers. */
export const delivered = (attempt: Attempt): boolean =>
  attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300;

/** One POST of the body to an address already checked; never follows a redirect (it could lead anywhere). */
async function post(url: string, headers: Record<string, string>, body: string): Promise<Attempt> {
  const started = Date.now();
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    await response.body?.cancel();
    return { statusCode: response.status, latencyMs: Date.now() - started, error: null };
  } catch (error) {
    const timedOut = (error as Error)?.name === 'TimeoutError' || (error as Error)?.name === 'AbortError';
    return {
      statusCode: null,
      latencyMs: Date.now() - started,
      error: timedOut ? `no answer in ${TIMEOUT_MS / 1000} s` : 'could not connect',
    };
  }
}

/** What a try sends, and to whom: the delivery's event, id and body, its endpoint's address and token as stored (sealed). */
export interface Outgoing {
  installationId: number;
  endpointId: number;
  url: string;
  token: string;
  event: string;
  deliveryId: string;
  payload: string;
}

/**
 * What tries made together share: each endpoint's token unsealed, and each address checked, once.
 * A missing or unusable `PM_TOKEN_KEY` throws (`TokenKeyError`): nothing a try can record.
 */
export function sharedByTries(env: Env) {
  const tokens = new Map<number, Promise<string | undefined>>();
  const refusals = new Map<string, Promise<string | undefined>>();
  return {
    token: (d: Outgoing) => {
      if (!tokens.has(d.endpointId))
        tokens.set(d.endpointId, decryptToken(d.token, env.PM_TOKEN_KEY, webhookTokenContext(d.installationId)));
      return tokens.get(d.endpointId)!;
    },
    refusal: (url: string) => {
      if (!refusals.has(url))
        refusals.set(url, refusedDestination(url, destinationRules(env), AbortSignal.timeout(5_000)));
      return refusals.get(url)!;
    },
  };
}

/** One try of a delivery: its address checked, then the body posted with its signatures. */
export async function attemptOf(delivery: Outgoing, shared: ReturnType<typeof sharedByTries>): Promise<Attempt> {
  const token = await shared.token(delivery);
  if (token === undefined)
    return { statusCode: null, latencyMs: 0, error: 'the signing token cannot be read (PM_TOKEN_KEY changed)' };
  const refused = await shared.refusal(delivery.url);
  if (refused) return { statusCode: null, latencyMs: 0, error: `refused: ${refused}` };
  return post(
    delivery.url,
    await headersFor(token, delivery.event, delivery.deliveryId, delivery.payload),
    delivery.payload,
  );
}
