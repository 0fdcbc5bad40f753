import type { Context } from 'hono';
import type { AppEnv } from '../app-env';

/** A record's id in the path, as `idParams` validates it. */
export interface IdParam {
  id: number;
}

/**
 * What a generic route's declaration validated (`c.req.valid`): the engine's handlers serve
 * routes declared for any resource, so Hono cannot infer the type; `T` names it, as the
 * resource's schemas (`schemas.ts`) give it.
 */
export function input<T>(c: Context<AppEnv>, target: 'json' | 'query' | 'param'): T {
  return (c.req as unknown as { valid(target: string): T }).valid(target);
}
