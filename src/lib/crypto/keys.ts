/**
 * The keys made from the one `PM_TOKEN_KEY` secret (base64 of 32 random bytes): one per use, by
 * HKDF-SHA256 (RFC 5869, empty salt: the secret is uniformly random already) with an info string
 * naming the use, so no key serves as both an AES-GCM key and an HMAC key, nor one token's HMAC
 * key as another's. A new use takes a new info string; a new version of a use, a new `/vN`.
 */
export const KEY_USES = {
  /** sealing secrets at rest (`token-cipher.ts`, the `v2.` form) */
  aesGcm: 'helpdesk/aes-gcm/v1',
  /** survey links' tokens (`happiness/survey-token.ts`) */
  surveyToken: 'helpdesk/survey-token/v1',
  /** tickets' tokens in mail subjects (`mail/thread-token.ts`) */
  subjectToken: 'helpdesk/subject-token/v1',
} as const;

export type HmacUse = Exclude<keyof typeof KEY_USES, 'aesGcm'>;

export class TokenKeyError extends Error {}

export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The secret's 32 bytes; a TokenKeyError (a 503 where a request asked: `pipeline/error-handler.ts`) when it is missing or not 32 bytes of base64. */
export function secretBytes(keyBase64: string | undefined): Uint8Array<ArrayBuffer> {
  if (!keyBase64) throw new TokenKeyError('PM_TOKEN_KEY is not set');
  let raw: Uint8Array<ArrayBuffer>;
  try {
    raw = fromBase64(keyBase64);
  } catch {
    throw new TokenKeyError('the token key is not base64');
  }
  if (raw.byteLength !== 32) throw new TokenKeyError('the token key must be 32 bytes, base64-encoded');
  return raw;
}

/** Derived keys by secret and use: a derivation is made once an isolate. */
const derived = new Map<string, Promise<CryptoKey>>();

type DeriveKeyArgs = Parameters<typeof crypto.subtle.deriveKey>;

function derive(
  keyBase64: string | undefined,
  info: string,
  algorithm: DeriveKeyArgs[2],
  usages: DeriveKeyArgs[4],
): Promise<CryptoKey> {
  const raw = secretBytes(keyBase64);
  const cacheKey = `${info}\n${keyBase64}`;
  let key = derived.get(cacheKey);
  if (!key) {
    key = crypto.subtle
      .importKey('raw', raw, 'HKDF', false, ['deriveKey'])
      .then((base) =>
        crypto.subtle.deriveKey(
          { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: new TextEncoder().encode(info) },
          base,
          algorithm,
          false,
          usages,
        ),
      );
    derived.set(cacheKey, key);
  }
  return key;
}

/** The AES-256-GCM key secrets at rest are sealed with. */
export const sealingKey = (keyBase64: string | undefined): Promise<CryptoKey> =>
  derive(keyBase64, KEY_USES.aesGcm, { name: 'AES-GCM', length: 256 }, ['encrypt', 'decrypt']);

/** The HMAC-SHA256 key of one kind of signed token. */
export const tokenKey = (keyBase64: string | undefined, use: HmacUse): Promise<CryptoKey> =>
  derive(keyBase64, KEY_USES[use], { name: 'HMAC', hash: 'SHA-256', length: 256 }, ['sign']);
