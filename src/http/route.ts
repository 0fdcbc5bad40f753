import type { Context, Handler, Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { registry, type RouteDoc } from '../openapi/registry';
import { ApiError } from './errors';

/**
 * Turns a documented path into Hono's pattern. A parameter that ends the path with its
 * extension (`{id}.json`) is matched with the extension and stripped by `pathParam`, because
 * Hono's parameters cannot be followed by text in the same segment.
 */
export function toHonoPath(path: string): string {
  return path.replace(/\{(\w+)\}(\.\w+)?/g, (_, name: string, extension?: string) =>
    extension ? `:${name}{[^/]+\\${extension}}` : `:${name}`,
  );
}

/** Adds a route to the app and its description to the OpenAPI document: one declaration, both. */
export function addRoute(app: Hono<AppEnv>, doc: RouteDoc, handler: Handler<AppEnv>): void {
  registry.push(doc);
  app.on(doc.method.toUpperCase(), toHonoPath(doc.path), handler);
}

/** A path parameter without its extension. */
export function rawPathParam(c: Context<AppEnv>, name: string): string {
  return (c.req.param(name) ?? '').replace(/\.(json|csv)$/, '');
}

/** An integer path parameter (`{id}`): anything else is a 400 naming it. */
export function pathParam(c: Context<AppEnv>, name: string): number {
  const raw = rawPathParam(c, name);
  if (!/^\d{1,10}$/.test(raw) || Number(raw) < 1 || Number(raw) > 2_147_483_647) {
    throw ApiError.invalid(name, `must be a positive integer, got "${raw}"`);
  }
  return Number(raw);
}
