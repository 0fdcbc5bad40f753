import { ApiError } from '../http/errors';

/** The 429 of a limit that resets at `resetAt` (epoch seconds, the minute's end): `Retry-After` until then, at least 1 s. */
export function tooManyRequests(resetAt: number, what: string, headers: Record<string, string> = {}): ApiError {
  const wait = Math.max(1, resetAt - Math.floor(Date.now() / 1000));
  return new ApiError(429, [{ code: 'tooManyRequests', detail: `${what}; try again in ${wait} s` }], {
    ...headers,
    'Retry-After': String(wait),
  });
}
