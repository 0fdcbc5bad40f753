import type { Env } from '../../app-env';
import { idOfSigned, signedId, type SignedIdKind } from '../../lib/signed-id';

/** A survey link's token: the survey's id, signed with the survey links' own key (`src/lib/signed-id.ts`). */
const SURVEY: SignedIdKind = { purpose: 'happiness-survey', use: 'surveyToken', hexChars: 40 };

export function surveyToken(env: Pick<Env, 'PM_TOKEN_KEY'>, surveyId: number): Promise<string> {
  return signedId(env, SURVEY, surveyId);
}

/** The survey a token names, or undefined when it names none. */
export function surveyOfToken(env: Pick<Env, 'PM_TOKEN_KEY'>, token: string): Promise<number | undefined> {
  return idOfSigned(env, SURVEY, token);
}

/** The survey's public address: `<origin>/v2/happiness/<token>.json`. */
export const surveyLink = async (env: Pick<Env, 'PM_TOKEN_KEY'>, origin: string, surveyId: number): Promise<string> =>
  `${origin.replace(/\/+$/, '')}/v2/happiness/${await surveyToken(env, surveyId)}.json`;
