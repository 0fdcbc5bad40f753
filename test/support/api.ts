import { inject } from 'vitest';
import { checkAgainstContract } from './contract';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface ApiRequest {
  method?: string;
  /** an object is sent as JSON; a string is sent as it is */
  body?: unknown;
  key?: string | null;
  headers?: Record<string, string>;
  query?: Record<string, string | number | object>;
  /** skip the check of the answer against the OpenAPI document (only for answers that are not the API's) */
  unchecked?: boolean;
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
  let body: string | undefined;
  if (request.body !== undefined) {
    body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(url, { method: request.method ?? 'GET', headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const method = (request.method ?? 'GET').toUpperCase();
  if (!request.unchecked) await checkAgainstContract(method, url, response.status, response.headers, parsed, text);
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}
