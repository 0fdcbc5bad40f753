import type { Env } from '../../app-env';
import { ApiError } from '../../http/errors';
import { hmacHex } from '../../lib/webhook-signature';

/**
 * A survey link's token: the survey's id and an HMAC of it keyed with the Worker's secret, so
 * the link can be made again wherever it is needed (a reply's mail) and nothing secret is stored.
 */
const message = (surveyId: number) => `happiness-survey:${surveyId}`;

function keyOf(env: Pick<Env, 'PM_TOKEN_KEY'>): string {
  if (!env.PM_TOKEN_KEY) throw new ApiError(503, [{ code: 'notConfigured', source: 'PM_TOKEN_KEY', detail: 'the server cannot make survey links: PM_TOKEN_KEY is not set' }]);
  return env.PM_TOKEN_KEY;
}

export async function surveyToken(env: Pick<Env, 'PM_TOKEN_KEY'>, surveyId: number): Promise<string> {
  return `${surveyId}-${(await hmacHex(keyOf(env), message(surveyId))).slice(0, 40)}`;
}

/** The survey a token names, or undefined when it names none (the comparison takes the same time however it differs). */
export async function surveyOfToken(env: Pick<Env, 'PM_TOKEN_KEY'>, token: string): Promise<number | undefined> {
  const match = /^([1-9]\d{0,9})-([0-9a-f]{40})$/.exec(token);
  if (!match) return undefined;
  const id = Number(match[1]);
  const expected = await surveyToken(env, id);
  let difference = expected.length ^ token.length;
  for (let i = 0; i < expected.length; i++) difference |= expected.charCodeAt(i) ^ (token.charCodeAt(i) || 0);
  return difference === 0 ? id : undefined;
}
