import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../../app-env';
import { jsonResponse } from '../../../http/responses';
import { storableText } from '../../../lib/field-schemas';
import { oauthErrorBody } from './oauth-error';

/** A protocol parameter: a string, optional at the schema (the handler says which are required, as the RFC words it). */
export const parameter = (description: string) => storableText(4096).optional().meta({ description });

/** The body of the token and revocation endpoints: form-encoded, as RFC 6749 has it, or JSON, as the platform also takes. */
export function formOrJson<S extends z.ZodType>(schema: S) {
  return {
    required: false,
    content: { 'application/x-www-form-urlencoded': { schema }, 'application/json': { schema } },
  } as const;
}

/** The parameters of a form-or-JSON body, whichever came (the other reads as empty). */
export function parametersOf<T extends object>(c: Context<AppEnv>): T {
  const valid = (target: 'json' | 'form') => c.req.valid(target as never) as T;
  return { ...valid('json'), ...valid('form') };
}

/** The refusals of the token and revocation endpoints, as RFC 6749 5.2 words them. */
export const OAUTH_REFUSALS = {
  401: jsonResponse('invalid_client (with `WWW-Authenticate`)', oauthErrorBody),
  413: jsonResponse('invalid_request: the body is larger than 1 MB', oauthErrorBody),
} as const;
