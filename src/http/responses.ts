import { z } from 'zod';
import { ERROR_CODES } from './errors';

/** The one error body (the spec's Validator and Error bodies). */
export const errorBodySchema = z
  .object({
    errors: z
      .array(
        z.object({
          code: z.enum(ERROR_CODES),
          source: z.string().optional().describe('the property, parameter or path part at fault'),
          detail: z.string(),
        }),
      )
      .min(1),
    requestId: z
      .string()
      .optional()
      .describe("the request's id, as `X-Request-Id` answers it: name it when you report the problem"),
  })
  .meta({ id: 'Error', description: "what went wrong, one entry per problem, and the request's id" });

/** An answer with a JSON body. */
export function jsonResponse<T extends z.ZodType>(description: string, schema: T) {
  return { description, content: { 'application/json': { schema } } } as const;
}

/** An answer with the error body. */
export function errorResponse(description: string) {
  return jsonResponse(description, errorBodySchema);
}

const STANDARD: Record<number, string> = {
  400: 'a parameter or the body is not valid: every problem is named',
  401: 'no valid credential (with `WWW-Authenticate`)',
  403: "the caller's role may not do this",
  404: 'no such record here',
  409: 'a request with the same `Idempotency-Key` is still running (or the write conflicts with what is stored)',
  413: 'the body is too large',
  422: 'the `Idempotency-Key` was sent with another request before',
  429: "past a rate limit (the teammate's requests a minute, or the failed authentications of the client's address): try again after `Retry-After` seconds",
  415: 'the body is not sent as JSON',
  500: 'something went wrong on our side; nothing was changed',
  503: 'the database does not answer; try again after `Retry-After` seconds',
};

/**
 * The errors every route may answer, by what it takes: a 400 always (the spec declares it on
 * every operation), 401 and 403 unless public, 404 with a path parameter, 409 and 422 on an
 * authenticated write (`Idempotency-Key`), 413 and 415 with a JSON body, 429 where a credential is
 * taken (the rate limits), 500, and 503 when the database does not answer.
 */
export function standardErrors(options: {
  public: boolean;
  pathParameters: boolean;
  jsonBody: boolean;
  idempotent: boolean;
  rateLimited: boolean;
}): Record<number, ReturnType<typeof errorResponse>> {
  const statuses = [
    400,
    ...(options.public ? [] : [401, 403]),
    ...(options.pathParameters ? [404] : []),
    ...(options.idempotent ? [409, 422] : []),
    ...(options.jsonBody ? [413, 415] : []),
    ...(options.rateLimited ? [429] : []),
    500,
    503,
  ];
  return Object.fromEntries(statuses.map((status) => [status, errorResponse(STANDARD[status]!)]));
}
