import { Scalar } from '@scalar/hono-api-reference';
import { z } from 'zod';
import { defineRoute } from '../http/route';
import { jsonResponse } from '../http/responses';
import { defineModule } from '../modules/module';
import { openApiDocument } from './document';
import { SCALAR_PATH } from './scalar-version';

const documentRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/openapi.json',
    tag: 'Service',
    operationId: 'getOpenApiDocument',
    public: true,
    summary: 'This OpenAPI 3.1 document',
    description:
      "The API's contract as an OpenAPI 3.1 document: every operation with its parameters, bodies and answers, built from the same zod schemas the routes validate with, the security schemes, and the groups the operations are listed in. See docs/architecture.md.",
    responses: { 200: jsonResponse('the document', z.object({ openapi: z.literal('3.1.0') }).loose()) },
  },
  async (c) => c.json((await openApiDocument()) as { openapi: '3.1.0' }, 200),
);

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

const docsRoute = defineRoute(
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

const scriptRoute = defineRoute(
  {
    method: 'get',
    path: SCALAR_PATH,
    tag: 'Service',
    operationId: 'getApiReferenceScript',
    public: true,
    summary: "The API reference page's script (Scalar)",
    description:
      'The script of the API reference page (`/v2/docs`), Scalar at the version its address names: a new version is a new address, so the script is cached for a year as immutable. A static asset, served from the edge with an `ETag` (a 304 for a matching If-None-Match); another method than GET or HEAD is answered 405 by the edge, without the error body. See docs/architecture.md.',
    'x-static-asset': true,
    responses: {
      200: { description: 'the script', content: { 'text/javascript': { schema: { type: 'string' } } } },
      304: { description: 'not modified since the ETag sent in If-None-Match' },
    },
  },
  (c) => c.env.ASSETS.fetch(c.req.raw),
);

/** The contract, for machines and for people: `/v2/openapi.json` and `/v2/docs`. */
export const openApiModule = defineModule({ name: 'openapi', routes: [documentRoute, docsRoute, scriptRoute] });
