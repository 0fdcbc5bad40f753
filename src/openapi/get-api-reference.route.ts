import { Scalar } from '@scalar/hono-api-reference';
import { defineRoute } from '../http/route';
import { SCALAR_PATH } from './scalar-version';

/**
 * The API reference as a web page: Scalar over the document, its script one of this Worker's
 * static assets (no CDN), with nothing fetched from elsewhere (no web fonts, no telemetry).
 */
const docsPage = Scalar({
  url: '/v2/openapi.json',
  cdn: SCALAR_PATH,
  pageTitle: 'Helpdesk API v2',
  favicon: 'data:,',
  withDefaultFonts: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  hideClientButton: true,
});

export const getApiReferenceRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/docs',
    tag: 'Service',
    operationId: 'getApiReference',
    public: true,
    summary: 'The API reference as a web page: operations by group, schemas, examples, search',
    description:
      'The API reference for people: a web page (Scalar) over `/v2/openapi.json` showing the operations by group, their schemas and examples, with search. Its script is served by this service, and nothing is fetched from elsewhere (no web fonts, no telemetry). See docs/architecture.md.',
    responses: { 200: { description: 'an HTML page', content: { 'text/html': { schema: { type: 'string' } } } } },
  },
  (c, next) => docsPage(c as never, next) as never,
);
