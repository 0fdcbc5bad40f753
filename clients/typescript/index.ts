// The Helpdesk API's typed client: openapi-fetch over the types `npm run clients` makes from the
// OpenAPI document (schema.ts). Every path, parameter, body and answer is typed from the routes'
// own declarations; a route the API does not have, or a body it would not take, does not compile.
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, operations, paths } from './schema';

export interface HelpdeskClientOptions {
  /** the API's origin: `https://helpdesk.example.com` (`npm run dev`: `http://127.0.0.1:8787`) */
  baseUrl: string;
  /** a teammate's API key, or an OAuth 2.0 access token: sent as `Authorization: Bearer` */
  apiKey: string;
  /** headers sent with every request besides the credential (`X-Request-Id`...) */
  headers?: Record<string, string>;
  /** the fetch to send with (globalThis.fetch when not given) */
  fetch?: ClientOptions['fetch'];
}

export type HelpdeskClient = Client<paths>;

/** A schema of the document by its name: `Schema<'Company'>`, `Schema<'Error'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/**
 * A client of the API, the key sent as a bearer token with every request:
 *
 * ```ts
 * const helpdesk = createHelpdeskClient({ baseUrl: 'http://127.0.0.1:8787', apiKey });
 * const { data, error, response } = await helpdesk.GET('/v2/companies/{id}.json', { params: { path: { id: 7 } } });
 * ```
 *
 * `data` is the success answer's body, `error` the error body (`{"errors": [...]}`), typed for
 * each operation; `response` is the Response itself.
 */
export function createHelpdeskClient({ baseUrl, apiKey, headers, fetch }: HelpdeskClientOptions): HelpdeskClient {
  return createClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: { ...headers, Authorization: `Bearer ${apiKey}` },
    ...(fetch ? { fetch } : {}),
  });
}
