import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import { openDatabase } from './client';

/** Gives the request its database handle, and closes any connection it opened once it is answered. */
export const withDatabase: MiddlewareHandler<AppEnv> = async (c, next) => {
  const db = openDatabase(c.env);
  c.set('db', db);
  try {
    await next();
  } finally {
    c.executionCtx.waitUntil(db.close());
  }
};
