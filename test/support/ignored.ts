import { expect } from 'vitest';
import type { ApiResponse } from './api';

/** The names an answer's `X-Ignored-Properties` gives, sorted; [] when it has none. */
export function ignoredNames(response: ApiResponse): string[] {
  return (response.headers.get('x-ignored-properties') ?? '').split(', ').filter(Boolean).sort();
}

/** The request succeeded (2xx), with exactly `names` ignored and named in `X-Ignored-Properties`. */
export function expectIgnored(response: ApiResponse, names: string[]): void {
  expect(response.status, response.text).toBeGreaterThanOrEqual(200);
  expect(response.status, response.text).toBeLessThan(300);
  expect(ignoredNames(response), response.text).toEqual([...names].sort());
}
