import { z } from 'zod';
import { jsonResponse } from '../http/responses';
import { defineRoute } from '../http/route';
import { openApiDocument } from './document';

export const getOpenApiDocumentRoute = defineRoute(
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
