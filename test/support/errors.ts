import { expect } from 'vitest';
import type { ApiResponse } from './api';

export interface ErrorEntry {
  code: string;
  source?: string;
  detail: string;
}

/** The `code` every entry of an error body carries, by status. */
const CODES: Record<number, string> = {
  400: 'invalid',
  401: 'unauthorized',
  402: 'paymentRequired',
  403: 'forbidden',
  404: 'notFound',
  409: 'conflict',
  413: 'tooLarge',
  415: 'unsupportedMediaType',
};

/**
 * Checks the one error body: the status, JSON with only `errors` and the request's id, each entry well formed with
 * the status's code; with a `source`, returns the entry that names (or matches) the culprit,
 * and with a `detail`, checks its wording.
 */
export function expectError(
  response: ApiResponse,
  status: number,
  source?: string | RegExp | null,
  detail?: RegExp,
): ErrorEntry {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  expect(Object.keys(response.body ?? {}), response.text).toEqual(['errors', 'requestId']);
  // the request's id, as the header answers it, so a report of the error can name it
  expect(response.body.requestId, response.text).toBe(response.headers.get('x-request-id'));
  const errors = response.body.errors as ErrorEntry[];
  expect(Array.isArray(errors) && errors.length > 0, response.text).toBe(true);
  for (const entry of errors) {
    if (CODES[status]) expect(entry.code, response.text).toBe(CODES[status]);
    expect(typeof entry.detail, response.text).toBe('string');
    expect(entry.detail.length, response.text).toBeGreaterThan(0);
    if ('source' in entry) expect(typeof entry.source, response.text).toBe('string');
  }
  if (source === undefined || source === null) return errors[0]!;
  const match = errors.find((entry) =>
    typeof source === 'string' ? entry.source === source : source.test(entry.source ?? ''),
  );
  expect(match, `no error names ${String(source)}: ${response.text}`).toBeDefined();
  if (detail) expect(match!.detail).toMatch(detail);
  return match!;
}
