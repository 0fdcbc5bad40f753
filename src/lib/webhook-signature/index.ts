/**
 * Signatures of webhook deliveries, as the platform signs its own (`X-Desk-Signature`):
 * `sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">` with a shared secret. The timestamp
 * (`X-Desk-Timestamp`, epoch seconds) is signed too, so a captured delivery cannot be replayed
 * later than `MAX_SKEW_SECONDS`.
 */
export const MAX_SKEW_SECONDS = 300;

const encoder = new TextEncoder();

function hmacKey(secret: string, usage: 'sign' | 'verify'): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);
}

function toHex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function fromHex(hex: string): Uint8Array | undefined {
  if (!/^([0-9a-f]{2})+$/i.test(hex)) return undefined;
  return Uint8Array.from(hex.match(/../g)!.map((pair) => parseInt(pair, 16)));
}

/** Lowercase hex of the HMAC-SHA256 of `text` with `secret` (a text, or a key made for signing). */
export async function hmacHex(secret: string | CryptoKey, text: string): Promise<string> {
  const key = typeof secret === 'string' ? await hmacKey(secret, 'sign') : secret;
  return toHex(await crypto.subtle.sign('HMAC', key, encoder.encode(text)));
}

export async function signPayload(secret: string, timestamp: number, body: string): Promise<string> {
  return `sha256=${await hmacHex(secret, `${timestamp}.${body}`)}`;
}

export type SignatureProblem = 'missing' | 'stale' | 'mismatch';

/** Checks a delivery's signature and freshness in constant time; the problem, or undefined when it is good. */
export async function checkSignature(
  secret: string,
  signature: string | undefined,
  timestamp: string | undefined,
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<SignatureProblem | undefined> {
  if (!signature || !timestamp) return 'missing';
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > MAX_SKEW_SECONDS) return 'stale';
  const mac = fromHex(signature.replace(/^sha256=/, ''));
  if (!mac) return 'mismatch';
  const valid = await crypto.subtle.verify(
    'HMAC',
    await hmacKey(secret, 'verify'),
    mac,
    encoder.encode(`${timestamp}.${body}`),
  );
  return valid ? undefined : 'mismatch';
}
