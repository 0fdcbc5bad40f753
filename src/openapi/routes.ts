import type { Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../app-env';
import { addRoute } from '../http/route';
import { docsPage } from './docs-page';
import { openApiDocument } from './document';

export function openApiRoutes(app: Hono<AppEnv>): void {
  addRoute(app, {
    method: 'get', path: '/v2/openapi.json', tag: 'docs', public: true, summary: 'This OpenAPI 3.1 document',
    responses: { 200: { description: 'the document', schema: z.object({ openapi: z.string() }).loose() } },
  }, (c) => c.json(openApiDocument()));
  addRoute(app, {
    method: 'get', path: '/v2/docs', tag: 'docs', public: true, summary: 'The API reference as a web page',
    responses: { 200: { description: 'an HTML page' } },
  }, (c) => c.html(docsPage()));
}
