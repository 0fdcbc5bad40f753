import { fromBase64, sealingKey, secretBytes, TokenKeyError } from './keys';

/**
 * Secrets we must send on, so cannot hash (the project-management token): AES-256-GCM through
 * WebCrypto. The stored form is `v2.<iv>.<ciphertext+tag>`, both base64, under the sealing key
 * derived from the `PM_TOKEN_KEY` secret (`keys.ts`). `context` is bound as additional data, so a
 * ciphertext copied to another installation's row does not decrypt there. `v1.` forms, sealed
 * before the keys were derived (under the secret's own bytes), still decrypt; a secret written
 * again is sealed as `v2.`.
 */
const VERSION = 'v2';
const LEGACY_VERSION = 'v1';
const IV_BYTES = 12;

export { TokenKeyError };

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The key a stored form was sealed under: the derived one, or for `v1.` the secret itself. */
function keyOf(version: string, keyBase64: string | undefined): Promise<CryptoKey> {
  if (version === VERSION) return sealingKey(keyBase64);
  return crypto.subtle.importKey('raw', secretBytes(keyBase64), { name: 'AES-GCM' }, false, ['decrypt']);
}

export async function encryptToken(plain: string, keyBase64: string | undefined, context: string): Promise<string> {
  const key = await sealingKey(keyBase64);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: new TextEncoder().encode(context) },
    key,
    new TextEncoder().encode(plain),
  );
  return `${VERSION}.${toBase64(iv)}.${toBase64(new Uint8Array(sealed))}`;
}

/**
 * The plain token, or `undefined` when the stored form is damaged or sealed under another key or
 * context. `legacyContext`: what a `v1.` form was bound to, where that differs from `context`.
 */
export async function decryptToken(
  stored: string,
  keyBase64: string | undefined,
  context: string,
  legacyContext = context,
): Promise<string | undefined> {
  const [version, iv, sealed, ...rest] = stored.split('.');
  if ((version !== VERSION && version !== LEGACY_VERSION) || !iv || !sealed || rest.length) {
    secretBytes(keyBase64); // no usable key is the server's problem (TokenKeyError), whatever is stored
    return undefined;
  }
  const key = await keyOf(version, keyBase64);
  try {
    const plain = await crypto.subtle.decrypt(
      {
        name: 'AES-GCM',
        iv: fromBase64(iv),
        additionalData: new TextEncoder().encode(version === VERSION ? context : legacyContext),
      },
      key,
      fromBase64(sealed),
    );
    return new TextDecoder().decode(plain);
  } catch {
    return undefined;
  }
}

/** The additional data of an installation's project-management token. */
export const pmTokenContext = (installationId: number) => `pm_connections:${installationId}`;

/**
 * An inbox's mail-server password is bound to its installation and inbox: a ciphertext copied to
 * another inbox's row does not decrypt there. `v1.` passwords were bound to the installation only
 * (`legacyInboxSecretContext`).
 */
export const inboxSecretContext = (installationId: number, inboxId: number) =>
  `inboxes.smtp_password:${installationId}:${inboxId}`;
export const legacyInboxSecretContext = (installationId: number) => `inboxes.smtp_password:${installationId}`;

/** The context of a webhook endpoint's signing token. */
export const webhookTokenContext = (installationId: number) => `webhook_endpoints.token:${installationId}`;
