import { expect } from 'vitest';
import { api, type ApiRequest } from './api';
import { expectError, type ErrorEntry } from './errors';

/**
 * A checker for refused requests: it sends the request (with the file's key unless the request
 * names one), checks the status and the error body naming the culprit, and that `snapshot`
 * (every row the endpoints could touch) is unchanged.
 */
export function refusals(snapshot: () => Promise<unknown>, key: () => string) {
  return async (
    path: string,
    request: ApiRequest,
    status: number,
    source?: string | RegExp | null,
  ): Promise<ErrorEntry> => {
    const before = await snapshot();
    const response = await api(path, { key: key(), ...request });
    const entry = expectError(response, status, source);
    expect(await snapshot()).toEqual(before);
    return entry;
  };
}
