import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import type { AppEnv } from '../../../app-env';
import { ApiError } from '../../../http/errors';

/** The error codes of RFC 6749 5.2 and RFC 7009 the token and revocation endpoints answer. */
export const OAUTH_ERRORS = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'unsupported_token_type',
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERRORS)[number];

/**
 * A refusal of the token or revocation endpoint, as RFC 6749 5.2 words it: `invalid_client` is
 * 401 (with `WWW-Authenticate`), everything else 400. An ApiError, so that it is answered, not
 * logged as a failure; the route's `answerAsOAuth` words it.
 */
export class OAuthError extends ApiError {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
  ) {
    super(error === 'invalid_client' ? 401 : 400, [
      { code: error === 'invalid_client' ? 'unauthorized' : 'invalid', detail: `${error}: ${description}` },
    ]);
  }
}

export const oauthErrorBody = z
  .object({ error: z.enum(OAUTH_ERRORS), error_description: z.string() })
  .meta({ id: 'OAuthError', description: 'RFC 6749 5.2' });

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

export function oauthErrorAnswer(error: OAuthError): Response {
  const headers: Record<string, string> = { ...NO_STORE, 'Content-Type': 'application/json' };
  if (error.status === 401) headers['WWW-Authenticate'] = 'Basic realm="oauth", charset="UTF-8"';
  return new Response(JSON.stringify({ error: error.error, error_description: error.description }), {
    status: error.status,
    headers,
  });
}

/**
 * The token and revocation endpoints' refusals: theirs as RFC 6749 names them; a body the shared
 * checks refused (not JSON, too large, a parameter sent twice) as `invalid_request`. A 429 and
 * anything unexpected keep the shared body.
 */
export function answerAsOAuth(error: Error, _c: Context<AppEnv>): Response | undefined {
  if (error instanceof OAuthError) return oauthErrorAnswer(error);
  const refused = sharedRefusal(error);
  if (!refused) return undefined;
  const answer = oauthErrorAnswer(new OAuthError('invalid_request', refused.detail));
  return refused.status === 413 ? new Response(answer.body, { status: 413, headers: answer.headers }) : answer;
}

/**
 * What the shared checks refused (a body too large or not JSON, a parameter of the wrong type),
 * in one line, for a protocol that words refusals its own way; undefined for a 429 or anything
 * unexpected, which keep the shared body.
 */
export function sharedRefusal(error: Error): { status: number; detail: string } | undefined {
  const status = error instanceof ApiError || error instanceof HTTPException ? error.status : 500;
  if (status === 429 || status >= 500) return undefined;
  const detail =
    error instanceof ApiError
      ? error.errors.map((entry) => `${entry.source ? `${entry.source}: ` : ''}${entry.detail}`).join('; ')
      : error.message;
  return { status, detail: detail || 'the request is malformed' };
}

/** The headers of every token answer (RFC 6749 5.1). */
export const TOKEN_HEADERS = NO_STORE;
