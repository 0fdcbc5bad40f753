import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import { discardUnreadBody } from '../http/body-bytes';
import { MAX_BODY_BYTES } from '../http/json-body';

/** Every answer leaves the request's body read (`discardUnreadBody`), up to the largest body an operation reads. */
export const discardUnreadBodies: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  await discardUnreadBody(c.req.raw, MAX_BODY_BYTES);
};
