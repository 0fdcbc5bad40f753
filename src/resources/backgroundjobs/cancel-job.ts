import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Context, Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { AGENTS, requireRole } from '../../auth/access';
import { backgroundJobs } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { addRoute, pathParam } from '../../http/route';
import { errorBodySchema } from '../../openapi/schemas';
import { jobOf } from './job-record';

/**
 * Cancels a job that is queued or running. Cancelling a cancelled job again is a 204 (DELETE is
 * idempotent); a job that already completed or failed cannot be undone: 409. The queue consumer
 * sees the status before each chunk and stops, and never moves a cancelled job on.
 */
async function cancelJob(c: Context<AppEnv>) {
  const who = c.var.principal;
  requireRole(who, AGENTS);
  const jobType = pathParam(c, 'type');
  const jobAction = pathParam(c, 'action');
  const id = pathParam(c, 'id');
  // Compared as integers: a code past smallint's range is simply no job, not a database error.
  const addressed = and(jobOf(who, id), sql`${backgroundJobs.type}::integer = ${jobType}`, sql`${backgroundJobs.action}::integer = ${jobAction}`);
  const cancelled = await c.var.db.http
    .update(backgroundJobs)
    .set({ status: 'cancelled', updatedAt: sql`now()`, finishedAt: sql`now()` })
    .where(and(addressed, inArray(backgroundJobs.status, ['queued', 'running'])))
    .returning({ id: backgroundJobs.id });
  if (cancelled.length) return c.body(null, 204);

  const [job] = await c.var.db.http.select({ status: backgroundJobs.status }).from(backgroundJobs).where(addressed);
  if (!job) throw ApiError.notFound('id', `no background job ${id} of type ${jobType} and action ${jobAction}`);
  if (job.status === 'cancelled') return c.body(null, 204);
  throw ApiError.conflict('id', `background job ${id} has already ${job.status === 'completed' ? 'completed' : 'failed'}; it cannot be cancelled`);
}

/** `DELETE /v2/backgroundjobs/{type}/{action}/{id}.json`: cancels a job. */
export function cancelJobRoute(app: Hono<AppEnv>): void {
  addRoute(app, {
    method: 'delete',
    path: '/v2/backgroundjobs/{type}/{action}/{id}.json',
    tag: 'backgroundjobs',
    summary: 'Cancel a background job, addressed by its integer type, action and id',
    responses: {
      204: { description: 'cancelled (or already cancelled)' },
      ...Object.fromEntries([400, 401, 403, 404, 409].map((status) => [status, { description: 'error', schema: errorBodySchema }])),
    },
  }, cancelJob);
}
