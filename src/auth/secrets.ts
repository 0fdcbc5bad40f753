/** Hex SHA-256 of a secret: how API keys and tokens are stored and looked up. */
export async function hashSecret(secret: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(secret));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A new secret: `tag` and 40 random base-62 characters (about 238 bits), its display prefix and
 * its hash. Tags tell what a secret is at a glance: `hd_` an API key, `hdo_` an OAuth access
 * token, `hdr_` a refresh token, `hdc_` a client id, `hds_` a client secret, `hda_` a code.
 */
export async function newSecret(tag: string): Promise<{ secret: string; prefix: string; hash: string }> {
  const bytes = crypto.getRandomValues(new Uint8Array(40));
  // 248 of 256 byte values map evenly onto 62 characters; re-draw the rest to stay unbiased.
  let body = '';
  for (const byte of bytes)
    body += byte < 248 ? ALPHABET[byte % 62] : ALPHABET[crypto.getRandomValues(new Uint8Array(1))[0]! % 62];
  const secret = `${tag}${body}`;
  return { secret, prefix: secret.slice(0, tag.length + 4), hash: await hashSecret(secret) };
}

/** A new API key (`hd_…`). */
export const newApiKey = () => newSecret('hd_');
