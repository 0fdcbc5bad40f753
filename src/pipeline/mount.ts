import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../app-env';
import type { UserRole } from '../db/schema';
import { authenticate } from '../auth/authenticate';
import { rateLimit } from '../ratelimit/middleware';
import { IDEMPOTENCY_KEY_PARAMETER, IDEMPOTENT_METHODS, idempotency } from '../idempotency/middleware';
import { groupName } from '../openapi/group-name';
import { registerExample } from '../openapi/examples';
import { registry } from '../openapi/registry';
import { ApiError, type ErrorEntry } from '../http/errors';
import {
  IGNORED_PROPERTIES_HEADER,
  IGNORED_PROPERTIES_HEADER_OBJECT,
  ignoredHeaderValue,
  ignoredPaths,
} from '../http/ignored-properties';
import { JSON_TYPE, pathName, readJsonBody } from '../http/json-body';
import { isIntegerParam } from '../http/params';
import { bodyContract, issuesToErrors } from '../http/record-body';
import { standardErrors } from '../http/responses';
import type { ApiRoute, RouteDeclaration } from '../http/route';

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
  return {
    method: declaration.method.toUpperCase(),
    pattern: new RegExp(`^${source}$`),
    names: names.filter((name) => params[name] && isIntegerParam(params[name])),
  };
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

/**
 * The 400 of a path, query or body the declaration's schema refused. The validator parses
 * without `reportInput`, so zod's issues do not say what was sent and a wrong-typed value would
 * read as a missing one: the refused value is parsed again, once, with it. A query parameter
 * sent twice arrives as an array, which is named as such.
 */
function refusal(
  schema: z.ZodType | undefined,
  target: string,
  value: unknown,
  issues: readonly z.core.$ZodIssue[],
): ErrorEntry[] {
  const reparsed = schema?.safeParse(value, { reportInput: true });
  const described = reparsed && !reparsed.success ? reparsed.error.issues : issues;
  return described.flatMap((issue) => {
    const repeated =
      target === 'query' && issue.code === 'invalid_type' && issue.path.length === 1 && Array.isArray(issue.input);
    return repeated
      ? [{ code: 'invalid' as const, source: pathName('', issue.path), detail: 'must be sent once, not repeated' }]
      : issuesToErrors([issue], '');
  });
}

function bodyContent(declaration: RouteDeclaration): Record<string, { schema?: unknown }> | undefined {
  return declaration.request?.body?.content as Record<string, { schema?: unknown }> | undefined;
}

/** The zod schema of the route's JSON body, if it takes one. */
function jsonBodySchema(declaration: RouteDeclaration): z.ZodType | undefined {
  return bodyContent(declaration)?.['application/json']?.schema as z.ZodType | undefined;
}

/** The route also takes a form (OAuth's token endpoint takes either): the JSON checks then wait for a JSON body. */
function takesForm(declaration: RouteDeclaration): boolean {
  return Object.keys(bodyContent(declaration) ?? {}).some((type) => type === 'application/x-www-form-urlencoded');
}

type Responses = Record<string, { headers?: unknown }>;

/** Each answer declaring `X-Ignored-Properties`: an operation that takes a JSON body names there what it ignored. */
function withIgnoredHeader(responses: Responses): Responses {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      const { headers } = response;
      const declared =
        headers instanceof z.ZodObject
          ? headers.extend({
              [IGNORED_PROPERTIES_HEADER]: z
                .string()
                .optional()
                .meta({ description: IGNORED_PROPERTIES_HEADER_OBJECT.description }),
            })
          : { ...(headers as object | undefined), [IGNORED_PROPERTIES_HEADER]: IGNORED_PROPERTIES_HEADER_OBJECT };
      return [status, { ...response, headers: declared }];
    }),
  );
}

/** Runs `middleware` only for a request that sends JSON. */
function forJson(middleware: MiddlewareHandler<AppEnv>): MiddlewareHandler<AppEnv> {
  return (c, next) => (JSON_TYPE.test(c.req.header('content-type') ?? '') ? middleware(c, next) : next());
}

/**
 * Mounts a declared route: who may call it (authentication unless public, then the roles), its
 * JSON body read safely, its path, query and body validated by the declaration's schemas (a
 * failure is a 400 naming each property), then the handler; and its operation in the document.
 */
export function mountRoute(app: OpenAPIHono<AppEnv>, route: ApiRoute): void {
  const { declaration } = route;
  const { public: isPublic, roles, tag, middleware: guards = [], answerError, example, ...operation } = declaration;
  const params = paramsShape(declaration);
  const body = jsonBodySchema(declaration);
  const contract = body ? bodyContract(body) : undefined;
  const schemas: Record<string, z.ZodType | undefined> = {
    param: declaration.request?.params as z.ZodType | undefined,
    query: declaration.request?.query as z.ZodType | undefined,
    header: declaration.request?.headers as z.ZodType | undefined,
    json: body,
  };

  const middleware: MiddlewareHandler<AppEnv>[] = [];
  middleware.push(async (c, next) => {
    c.set('route', declaration.path);
    await next();
    // the app's error handler has answered by now; the route words the refusal its own way
    const answer = c.error && answerError?.(c.error, c);
    if (answer) c.res = answer;
    const ignored = c.get('ignoredProperties');
    if (ignored) c.res.headers.set(IGNORED_PROPERTIES_HEADER, ignored);
  });
  if (!isPublic) middleware.push(authenticate(roles), rateLimit);
  middleware.push(...guards);
  if (contract) {
    const read = readJsonBody((path) => contract.name(path), {
      required: declaration.request?.body?.required === true,
    });
    middleware.push(takesForm(declaration) ? forJson(read) : read);
  }
  const write = IDEMPOTENT_METHODS.has(declaration.method.toUpperCase());
  if (!isPublic && write) middleware.push(idempotency);

  const config = {
    ...operation,
    description: withCallers(operation.description, roles, Boolean(isPublic)),
    ...(!isPublic && write
      ? { parameters: [...((operation as { parameters?: unknown[] }).parameters ?? []), IDEMPOTENCY_KEY_PARAMETER] }
      : {}),
    tags: [groupName(tag)],
    ...(isPublic && !operation.security ? { security: [] } : {}),
    responses: (body ? withIgnoredHeader : (responses: Responses) => responses)({
      ...standardErrors({
        public: Boolean(isPublic),
        pathParameters: Object.keys(params).length > 0,
        jsonBody: Boolean(body),
        idempotent: !isPublic && write,
        // a public route that takes a teammate's credential of its own (`security`) meets the failed-authentication limit
        rateLimited: !isPublic || Boolean((operation.security as unknown[] | undefined)?.length),
      }),
      ...declaration.responses,
    }),
  } as RouteConfig;
  registry.registerPath(config);
  if (example) registerExample(declaration.operationId, example);
  const loose = looseRoute(declaration, params);
  if (loose) looseRoutes.push(loose);

  app.openapi(
    { ...config, path: routingPath(declaration.path, params), hide: true, middleware },
    route.handler as never,
    ((result: { success: boolean; target: string; data: unknown; error?: z.ZodError }, c: Context<AppEnv>) => {
      if (result.success) {
        if (result.target === 'json') c.set('ignoredProperties', ignoredHeaderValue(ignoredPaths(result.data)));
        return;
      }
      if (result.target === 'json' && contract?.explain) {
        const errors = contract.explain(result.data);
        throw new ApiError(
          400,
          errors.length
            ? errors
            : [{ code: 'invalid', source: 'body', detail: 'the body does not match what this operation takes' }],
        );
      }
      throw new ApiError(400, refusal(schemas[result.target], result.target, result.data, result.error!.issues));
    }) as never,
  );
}

const ROLE_NAMES: Record<UserRole, string> = {
  owner: 'owners',
  admin: 'admins',
  agent: 'agents',
  collaborator: 'collaborators',
};

/** An operation's description, ending with who may call it: the document says what `authenticate(roles)` enforces. */
function withCallers(
  description: string | undefined,
  roles: readonly UserRole[] | undefined,
  isPublic: boolean,
): string {
  const names = (roles ?? []).map((role) => ROLE_NAMES[role]);
  const callers = isPublic
    ? 'Called without an API key.'
    : `Who may call it: ${names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0]}.`;
  return description ? `${description.trimEnd()}\n\n${callers}` : callers;
}
