import { Hono } from 'hono';
import type { AppEnv } from './app-env';
import { authenticate } from './auth/authenticate';
import { withDatabase } from './db/middleware';
import { handleError, handleNotFound } from './http/error-handler';
import { openApiRoutes } from './openapi/routes';
import { companiesRoutes } from './resources/companies';

/**
 * The whole HTTP surface. Public routes come first; everything added after `authenticate`
 * needs a credential.
 */
export function createApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError(handleError);
  app.notFound(handleNotFound);

  app.get('/health', (c) => c.json({ status: 'ok' }));
  openApiRoutes(app);

  app.use('/v2/*', withDatabase, authenticate);
  companiesRoutes(app);
  return app;
}
