import type { RouteConfig, RouteHandler } from '@hono/zod-openapi';
import type { Context, Handler, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import type { UserRole } from '../db/schema';
import type { RequestExample } from '../openapi/examples';

/**
 * One route, declared once: its OpenAPI operation (path, parameters, body, answers), the zod
 * schemas that validate its path, query and body (the same ones the document is made of), and
 * who may call it. `mountRoute` (`mount.ts`) turns it into the Hono route and the document's
 * operation; the handler's parameters and answers are typed by it.
 */
export type RouteDeclaration = Omit<RouteConfig, 'middleware' | 'hide' | 'tags' | 'operationId' | 'summary'> & {
  /** a name, as `listCompanies` or `getCompany` */
  operationId: string;
  /** the group of the spec the operation belongs to, as `Companies` */
  tag: string;
  summary: string;
  /**
   * Served without an API key: the route checks what the request carries itself (a conversation
   * token, a contact form token, a signature), or nothing needs one.
   */
  public?: true;
  /** the roles that may call it; every route that is not public names them */
  roles?: readonly UserRole[];
  /** runs once the caller may call, before the body is read and validated (a credential of its own, a signature over the body) */
  middleware?: MiddlewareHandler<AppEnv>[];
  /**
   * How its refusals read, when a protocol of its own names them (OAuth's `{"error": ...}`, an
   * HTML page): the answer for an error thrown anywhere in the route, or undefined to leave the
   * shared error body.
   */
  answerError?: (error: Error, c: Context<AppEnv>) => Response | undefined;
  /** what a reader sends to try it (`openapi/examples.ts`): shown in the document, and sent in order by the examples' walk */
  example?: RequestExample;
};

export interface ApiRoute {
  declaration: RouteDeclaration;
  handler: Handler<AppEnv>;
}

/** Declares a route: the handler's validated input and its answers are typed by the declaration. */
export function defineRoute<const R extends RouteDeclaration>(
  declaration: R,
  handler: RouteHandler<R, AppEnv>,
): ApiRoute {
  if (!declaration.public && !declaration.roles)
    throw new Error(`${declaration.operationId}: a route that is not public names the roles that may call it`);
  return { declaration, handler: handler as unknown as Handler<AppEnv> };
}
