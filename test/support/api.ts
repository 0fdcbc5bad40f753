import { inject } from 'vitest';
import { checkAnswer, type ApiResponse } from './contract';

export type { ApiResponse } from './contract';

export interface ApiRequest {
  method?: string;
  /**
   * an object is sent as JSON; a string is sent as it is (as JSON unless a content-type header
   * says otherwise); a form or bytes are sent as they are, with the content type fetch gives them
   */
  body?: unknown;
  key?: string | null;
  headers?: Record<string, string>;
  query?: Record<string, string | number | object>;
}

/**
 * A request to the Worker under test, as a client would send it. The answer is checked against
 * the OpenAPI document (`contract.ts`): a mismatch fails the test.
 */
export async function api<T = any>(path: string, request: ApiRequest = {}): Promise<ApiResponse<T>> {
  const url = new URL(inject('workerUrl') + path);
  for (const [name, value] of Object.entries(request.query ?? {})) {
    url.searchParams.set(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  const headers: Record<string, string> = { ...request.headers };
  if (request.key) headers.authorization ??= `Bearer ${request.key}`;
  let body: string | FormData | Blob | Uint8Array | undefined;
  if (request.body instanceof FormData || request.body instanceof Blob || request.body instanceof Uint8Array) {
    body = request.body;
  } else if (request.body !== undefined) {
    body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    headers['content-type'] ??= 'application/json';
  }
  const method = request.method ?? 'GET';
  return checkAnswer<T>(method, url, await fetch(url, { method, headers, body }));
}
