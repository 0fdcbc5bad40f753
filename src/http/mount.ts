import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { z } from 'zod';
import type { AppEnv } from '../app-env';
import { requireRole } from '../auth/access';
import { authenticate } from '../auth/authenticate';
import { registry } from '../openapi/registry';
import { ApiError } from './errors';
import { readJsonBody } from './json-body';
import { isIntegerParam } from './params';
import { bodyContract, issuesToErrors } from './record-body';
import { standardErrors } from './responses';
import type { ApiRoute, RouteDeclaration } from './route';

/** A path parameter as the router matches it: digits only for an integer, with the extension when it ends the path. */
function routingPath(path: string, params: Record<string, z.ZodType>): string {
  return path.replace(/\{(\w+)\}(\.\w+)?/g, (_, name: string, extension?: string) => {
    const pattern = params[name] && isIntegerParam(params[name]) ? '[0-9]+' : '[^/]+';
    return `:${name}{${pattern}${extension ? `\\${extension}` : ''}}`;
  });
}

/** The integer parameters of a path, matched loosely: to tell a malformed id from a path that names no route. */
interface LooseRoute {
  method: string;
  pattern: RegExp;
  names: string[];
}

const looseRoutes: LooseRoute[] = [];

function looseRoute(declaration: RouteDeclaration, params: Record<string, z.ZodType>): LooseRoute | undefined {
  const names: string[] = [];
  const source = declaration.path.replace(/[.]/g, '\\.').replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return params[name] && isIntegerParam(params[name]) ? '([^/]+)' : '[^/]+';
  });
  if (!names.some((name) => params[name] && isIntegerParam(params[name]))) return undefined;
  return { method: declaration.method.toUpperCase(), pattern: new RegExp(`^${source}$`), names: names.filter((name) => params[name] && isIntegerParam(params[name])) };
}

/**
 * A path that names no route but would, were its integer parameter an integer (`/v2/companies/abc.json`):
 * the 400 naming that parameter, as a malformed id answers.
 */
export function malformedParameter(method: string, path: string): ApiError | undefined {
  for (const route of looseRoutes) {
    if (route.method !== method) continue;
    const match = route.pattern.exec(path);
    if (!match) continue;
    const index = match.slice(1).findIndex((value) => !/^\d+(\.(json|csv))?$/.test(value));
    if (index < 0) continue;
    const value = match[index + 1]!.replace(/\.(json|csv)$/, '');
    return ApiError.invalid(route.names[index]!, `must be a positive integer without leading zeros; got "${value}"`);
  }
  return undefined;
}

function paramsShape(declaration: RouteDeclaration): Record<string, z.ZodType> {
  const params = declaration.request?.params as z.ZodObject | undefined;
  return (params?.shape ?? {}) as Record<string, z.ZodType>;
}

/** The zod schema of the route's JSON body, if it takes one. */
function jsonBodySchema(declaration: RouteDeclaration): z.ZodType | undefined {
  const content = declaration.request?.body?.content as Record<string, { schema?: unknown }> | undefined;
  return content?.['application/json']?.schema as z.ZodType | undefined;
}

/** Clears what earlier mounts registered: one app per isolate, but tests may build several. */
export function resetRoutes(): void {
  registry.definitions.length = 0;
  looseRoutes.length = 0;
}

/**
 * Mounts a declared route: who may call it (authentication unless public, then the roles), its
 * JSON body read safely, its path, query and body validated by the declaration's schemas (a
 * failure is a 400 naming each property), then the handler; and its operation in the document.
 */
export function mountRoute(app: OpenAPIHono<AppEnv>, route: ApiRoute): void {
  const { declaration } = route;
  const { public: isPublic, roles, tag, middleware: guards = [], ...operation } = declaration;
  const params = paramsShape(declaration);
  const body = jsonBodySchema(declaration);
  const contract = body ? bodyContract(body) : undefined;

  const middleware: MiddlewareHandler<AppEnv>[] = [];
  middleware.push(async (c, next) => {
    c.set('route', declaration.path);
    await next();
  });
  if (!isPublic) middleware.push(authenticate);
  if (roles) {
    middleware.push(async (c, next) => {
      requireRole(c.var.principal, roles);
      await next();
    });
  }
  middleware.push(...guards);
  if (contract) middleware.push(readJsonBody((path) => contract.name(path)));

  const config = {
    ...operation,
    tags: [tag],
    ...(isPublic && !operation.security ? { security: [] } : {}),
    responses: {
      ...standardErrors({ public: Boolean(isPublic), pathParameters: Object.keys(params).length > 0, jsonBody: Boolean(body) }),
      ...declaration.responses,
    },
  } as RouteConfig;
  registry.registerPath(config);
  const loose = looseRoute(declaration, params);
  if (loose) looseRoutes.push(loose);

  app.openapi(
    { ...config, path: routingPath(declaration.path, params), hide: true, middleware },
    route.handler as never,
    (async (result: { success: boolean; target: string; error?: z.ZodError }, c: Context<AppEnv>) => {
      if (result.success) return;
      if (result.target === 'json' && contract) {
        const errors = contract.explain(await c.req.json());
        throw new ApiError(400, errors.length ? errors : [{ code: 'invalid', source: 'body', detail: 'the body does not match what this operation takes' }]);
      }
      throw new ApiError(400, issuesToErrors(result.error!.issues, ''));
    }) as never,
  );
}
