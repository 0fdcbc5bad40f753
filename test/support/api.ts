import { inject } from 'vitest';

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
}

/** A request to the Worker under test, as a client would send it. */
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
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}
