/**
 * Secrets we must send on, so cannot hash (the project-management token): AES-256-GCM through
 * WebCrypto, under a 32-byte key given base64-encoded (the `PM_TOKEN_KEY` secret). The stored
 * form is `v1.<iv>.<ciphertext+tag>`, both base64. `context` is bound as additional data, so a
 * ciphertext copied to another installation's row does not decrypt there.
 */
const VERSION = 'v1';
const IV_BYTES = 12;

export class TokenKeyError extends Error {}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

async function importKey(keyBase64: string | undefined): Promise<CryptoKey> {
  let raw: Uint8Array<ArrayBuffer>;
  try {
    raw = fromBase64(keyBase64 ?? '');
  } catch {
    throw new TokenKeyError('the token key is not base64');
  }
  if (raw.byteLength !== 32) throw new TokenKeyError('the token key must be 32 bytes, base64-encoded');
  return crypto.subtle.importKey('raw', raw, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
}

export async function encryptToken(plain: string, keyBase64: string | undefined, context: string): Promise<string> {
  const key = await importKey(keyBase64);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: new TextEncoder().encode(context) },
    key,
    new TextEncoder().encode(plain),
  );
  return `${VERSION}.${toBase64(iv)}.${toBase64(new Uint8Array(sealed))}`;
}

/** The plain token, or `undefined` when the stored form is damaged or sealed under another key or context. */
export async function decryptToken(stored: string, keyBase64: string | undefined, context: string): Promise<string | undefined> {
  const key = await importKey(keyBase64);
  const [version, iv, sealed, ...rest] = stored.split('.');
  if (version !== VERSION || !iv || !sealed || rest.length) return undefined;
  try {
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: fromBase64(iv), additionalData: new TextEncoder().encode(context) },
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

/** An inbox's mail-server password is bound to its installation and inbox. */
export const inboxSecretContext = (installationId: number) => `inboxes.smtp_password:${installationId}`;

/** The context of a webhook endpoint's signing token. */
export const webhookTokenContext = (installationId: number) => `webhook_endpoints.token:${installationId}`;
