/** Hex SHA-256 of a secret: how API keys and tokens are stored and looked up. */
export async function hashSecret(secret: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(secret));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A new API key (`hd_` and 40 random base-62 characters, about 238 bits), its display prefix and its hash. */
export async function newApiKey(): Promise<{ secret: string; prefix: string; hash: string }> {
  const bytes = crypto.getRandomValues(new Uint8Array(40));
  // 248 of 256 byte values map evenly onto 62 characters; re-draw the rest to stay unbiased.
  let body = '';
  for (const byte of bytes) body += byte < 248 ? ALPHABET[byte % 62] : ALPHABET[crypto.getRandomValues(new Uint8Array(1))[0]! % 62];
  const secret = `hd_${body}`;
  return { secret, prefix: secret.slice(0, 7), hash: await hashSecret(secret) };
}
