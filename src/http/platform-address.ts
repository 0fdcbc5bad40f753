/**
 * The platform's clients address the API as `https://<site>/desk/api/v2/...` (its SDK's and MCP
 * server's default base, its samples), so every `/v2/...` route answers under `/desk/api/v2/...`
 * too: the request is readdressed before anything sees it, so routing, authentication, rate
 * limits, idempotency and CORS treat both addresses as one. Only `/v2/` paths: the platform
 * serves its OAuth flow elsewhere, and `/health`, `/oauth/...`, `/.well-known/...` and the
 * widget's pages stay where they are. Leading slashes repeat in one of the platform's own samples
 * (`https://<site>.teamwork.com//desk/api/v2/...`) and are taken as one.
 */
export const PLATFORM_BASE_PATH = '/desk/api';

const PLATFORM_PREFIX = /^\/+desk\/api(?=\/v2\/)/;

/** The request as the routes know it: a `/desk/api/v2/...` address becomes `/v2/...`, anything else is left as it is. */
export function atServiceAddress(request: Request): Request {
  const url = new URL(request.url);
  const prefix = PLATFORM_PREFIX.exec(url.pathname);
  if (!prefix) return request;
  url.pathname = url.pathname.slice(prefix[0].length);
  return new Request(url, request);
}
