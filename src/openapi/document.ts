import { z } from 'zod';
import { registry, type RouteDoc } from './registry';

type Components = Record<string, unknown>;

/**
 * A zod schema as JSON Schema. Schemas named with `.meta({ id })` move to
 * `components.schemas` (input ones with an `Input` suffix, as they may differ), and their
 * references are rewritten to point there.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output', components: Components): Record<string, unknown> {
  const suffix = io === 'input' ? 'Input' : '';
  const { $schema, $defs, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  void $schema;
  const relink = (value: unknown) =>
    JSON.parse(JSON.stringify(value).replace(/"#\/\$defs\/([^"]+)"/g, (_, id: string) => `"#/components/schemas/${id}${suffix}"`));
  for (const [id, definition] of Object.entries(($defs ?? {}) as Record<string, unknown>)) components[`${id}${suffix}`] = relink(definition);
  return relink(rest);
}

function pathParameters(path: string) {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: name === 'token' ? { type: 'string' } : { type: 'integer', minimum: 1 },
  }));
}

function operation(route: RouteDoc, components: Components) {
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    responses[status] = response.schema
      ? { description: response.description, content: { 'application/json': { schema: jsonSchema(response.schema, 'output', components) } } }
      : { description: response.description };
  }
  return {
    tags: [route.tag],
    summary: route.summary,
    operationId: `${route.method}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, ch: string | undefined) => (ch ?? '').toUpperCase())}`,
    ...(route.public ? { security: [] } : {}),
    parameters: [
      ...pathParameters(route.path),
      ...(route.query ?? []).map((q) => ({ name: q.name, in: 'query', description: q.description, schema: q.schema })),
    ],
    ...(route.body
      ? {
          requestBody: {
            required: route.body.required,
            content: { [route.body.contentType ?? 'application/json']: { schema: jsonSchema(route.body.schema, 'input', components) } },
          },
        }
      : {}),
    responses,
  };
}

let cached: unknown;

/** The OpenAPI 3.1 document of every route in the registry, built once per isolate. */
export function openApiDocument(): unknown {
  if (cached) return cached;
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Components = {};
  for (const route of registry) (paths[route.path] ??= {})[route.method] = operation(route, schemas);
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'Helpdesk API',
      version: '2.0.0',
      description: 'The helpdesk service API, version 2. Wire conventions: see docs/api-conventions.md in the repository.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }, { basic: [] }],
    components: {
      schemas,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'an API key or an OAuth 2.0 access token' },
        basic: { type: 'http', scheme: 'basic', description: 'the API key as user name, any password' },
      },
    },
    paths,
  };
  return cached;
}
