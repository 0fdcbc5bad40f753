import { sql, type SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../app-env';
import { deploymentDefault } from './middleware';

const rateLimitSchema = z
  .object({
    requestsPerMinute: z
      .number()
      .int()
      .nullable()
      .meta({ description: "the installation's own limit; null: the deployment's default" }),
    default: z.number().int().meta({ description: "the deployment's default (120 unless the operator set another)" }),
    effective: z.number().int().meta({ description: 'what applies: requestsPerMinute, else the default' }),
  })
  .meta({ id: 'RateLimit' });

export const answer = z.object({ ratelimit: rateLimitSchema });

/** The installation's own limit, as a statement: to run, or to send last in a write's batch. */
export const ownLimit = (installationId: number): SQL =>
  sql`SELECT rate_limit_per_minute FROM installations WHERE id = ${installationId}`;

/** The answer, from `ownLimit`'s rows. */
export function limitOf(c: Context<AppEnv>, rows: Record<string, unknown>[]) {
  const own = rows[0]?.rate_limit_per_minute;
  const fallback = deploymentDefault(c.env);
  const requestsPerMinute = own === null || own === undefined ? null : Number(own);
  return { ratelimit: { requestsPerMinute, default: fallback, effective: requestsPerMinute ?? fallback } };
}
