import type { Env } from '../app-env';
import { tokenKey, type HmacUse } from './crypto';
import { hmacHex } from './webhook-signature';

/**
 * An id that carries its own proof: `<id>-<hex>`, the hex an HMAC of `<purpose>:<id>` keyed with
 * the use's own key, derived from the Worker's secret (`PM_TOKEN_KEY`, `crypto/keys.ts`). It can
 * be made again wherever it is needed (a survey link in a mail, a ticket's token in a subject) and
 * nothing secret is stored.
 */
export interface SignedIdKind {
  /** named in the signed text */
  purpose: string;
  /** whose derived key signs it */
  use: HmacUse;
  hexChars: number;
}

/** The use's key; a TokenKeyError (a 503 where a request asked) when the Worker's secret is missing or malformed. */
function keyOf(env: Pick<Env, 'PM_TOKEN_KEY'>, kind: SignedIdKind): Promise<CryptoKey> {
  return tokenKey(env.PM_TOKEN_KEY, kind.use);
}

const hexOf = async (key: string | CryptoKey, kind: SignedIdKind, id: number) =>
  (await hmacHex(key, `${kind.purpose}:${id}`)).slice(0, kind.hexChars);

export async function signedId(env: Pick<Env, 'PM_TOKEN_KEY'>, kind: SignedIdKind, id: number): Promise<string> {
  return `${id}-${await hexOf(await keyOf(env, kind), kind, id)}`;
}

/** Same-length texts compared in a time that does not depend on where they differ. */
function sameText(a: string, b: string): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ (b.charCodeAt(i) || 0);
  return difference === 0;
}

/**
 * The id a token names, or undefined when it names none. For a transition, a token made before
 * the keys were derived (the HMAC keyed with the text of `PM_TOKEN_KEY` itself, as links and
 * subjects already mailed carry) still names its id: it is still bound to its purpose.
 */
export async function idOfSigned(
  env: Pick<Env, 'PM_TOKEN_KEY'>,
  kind: SignedIdKind,
  token: string,
): Promise<number | undefined> {
  const match = new RegExp(`^([1-9]\\d{0,9})-([0-9a-f]{${kind.hexChars}})$`).exec(token);
  if (!match || Number(match[1]) > 2_147_483_647) return undefined;
  const id = Number(match[1]);
  const [current, legacy] = await Promise.all([
    hexOf(await keyOf(env, kind), kind, id),
    hexOf(env.PM_TOKEN_KEY!, kind, id),
  ]);
  const good = sameText(current, match[2]!);
  const mailedBefore = sameText(legacy, match[2]!);
  return good || mailedBefore ? id : undefined;
}
