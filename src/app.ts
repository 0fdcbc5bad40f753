import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from './app-env';
import { handleError, handleNotFound } from './pipeline/error-handler';
import { mountRoute } from './pipeline/mount';
import { requestContext } from './pipeline/request-context';
import { discardUnreadBodies } from './pipeline/unread-body';
import type { Module } from './modules/module';

/**
 * The whole HTTP surface: every module's routes, each declared once with who may call it
 * (public or the roles), mounted in any order (`{id}` matches an integer only).
 */
export function createApp(modules: readonly Module[]): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.onError(handleError);
  app.notFound(handleNotFound);
  app.use('*', discardUnreadBodies, requestContext);
  for (const module of modules) for (const { path, handler } of module.middleware) app.use(path, handler);
  for (const module of modules) for (const route of module.routes) mountRoute(app, route);
  return app;
}
