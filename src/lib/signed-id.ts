import type { Env } from '../app-env';
import { ApiError } from '../http/errors';
import { hmacHex } from './webhook-signature';

/**
 * An id that carries its own proof: `<id>-<hex>`, the hex an HMAC of the id and its purpose keyed
 * with the Worker's secret (`PM_TOKEN_KEY`). It can be made again wherever it is needed (a survey
 * link in a mail, a ticket's token in a subject) and nothing secret is stored.
 */
function keyOf(env: Pick<Env, 'PM_TOKEN_KEY'>, purpose: string): string {
  if (!env.PM_TOKEN_KEY) throw new ApiError(503, [{ code: 'notConfigured', source: 'PM_TOKEN_KEY', detail: `the server cannot make ${purpose} tokens: PM_TOKEN_KEY is not set` }]);
  return env.PM_TOKEN_KEY;
}

export async function signedId(env: Pick<Env, 'PM_TOKEN_KEY'>, purpose: string, id: number, hexChars: number): Promise<string> {
  return `${id}-${(await hmacHex(keyOf(env, purpose), `${purpose}:${id}`)).slice(0, hexChars)}`;
}

/** The id a token names, or undefined when it names none (the comparison takes the same time however it differs). */
export async function idOfSigned(env: Pick<Env, 'PM_TOKEN_KEY'>, purpose: string, token: string, hexChars: number): Promise<number | undefined> {
  const match = new RegExp(`^([1-9]\\d{0,9})-([0-9a-f]{${hexChars}})$`).exec(token);
  if (!match || Number(match[1]) > 2_147_483_647) return undefined;
  const id = Number(match[1]);
  const expected = await signedId(env, purpose, id, hexChars);
  let difference = expected.length ^ token.length;
  for (let i = 0; i < expected.length; i++) difference |= expected.charCodeAt(i) ^ (token.charCodeAt(i) || 0);
  return difference === 0 ? id : undefined;
}
