import { and, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import { AGENTS } from '../../auth/access';
import { backgroundJobs } from '../../db/schema';
import { withEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { integerParam } from '../../http/params';
import { errorResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { JOB_ACTION_CODES, JOB_TYPE_CODES } from '../../jobs/job-codes';
import { jobOf } from './job-record';

/**
 * `DELETE /v2/backgroundjobs/{type}/{action}/{id}.json`: cancels a job that is queued or
 * running (a `cancelled` event of the job). Cancelling a cancelled job again is a 204 (DELETE
 * is idempotent); a job that already completed or failed cannot be undone: 409. The queue
 * consumer sees the status before each chunk and stops, and never moves a cancelled job on.
 * One exchange whatever the answer.
 */
export const cancelBackgroundJobRoute = defineRoute(
  {
    method: 'delete',
    path: '/v2/backgroundjobs/{type}/{action}/{id}.json',
    tag: 'BackgroundJobs',
    operationId: 'cancelBackgroundJob',
    roles: AGENTS,
    summary: 'Cancel a background job, addressed by its integer type, action and id',
    description:
      "Cancels a job that is queued or running, whoever started it: 204, with a `cancelled` event of the job; the queue consumer stops before its next chunk, and rows already handled stay handled. A job already cancelled is a 204 again, and one that completed or failed a 409: its work cannot be undone. No job with that id in the installation, or one whose type or action differs from the path's, is a 404. See docs/background-jobs.md.",
    request: {
      params: z.object({
        type: integerParam(`the job's type: ${JOB_TYPE_CODES}`),
        action: integerParam(`the job's action: ${JOB_ACTION_CODES}`),
        id: integerParam("the job's id"),
      }),
    },
    // a company import (type 1, action 1) still waiting for the queue
    example: { params: { type: 1, action: 1, id: 2 } },
    responses: {
      204: { description: 'cancelled (or already cancelled)' },
      409: errorResponse('the job already completed or failed'),
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { type: jobType, action: jobAction, id } = c.req.valid('param');
    // Compared as integers: a code past smallint's range is simply no job, not a database error.
    const addressed = and(
      jobOf(who, id),
      sql`${backgroundJobs.type}::integer = ${jobType}`,
      sql`${backgroundJobs.action}::integer = ${jobAction}`,
    );
    const cancel = c.var.db.http
      .update(backgroundJobs)
      .set({ status: 'cancelled', updatedAt: sql`now()`, finishedAt: sql`now()` })
      .where(and(addressed, inArray(backgroundJobs.status, ['queued', 'running'])))
      .returning({ id: backgroundJobs.id })
      .getSQL();
    // one batch: the cancel, then the job as it now stands (what a job not cancelled here is told)
    const [cancelled, now] = await c.var.db.batch([
      withEvents(cancel, who, 'backgroundjobs', 'cancelled'),
      c.var.db.http.select({ status: backgroundJobs.status }).from(backgroundJobs).where(addressed).getSQL(),
    ]);
    if (cancelled!.length) return c.body(null, 204);
    const [job] = now!;
    if (!job) throw ApiError.notFound('id', `no background job ${id} of type ${jobType} and action ${jobAction}`);
    if (job.status === 'cancelled') return c.body(null, 204);
    throw ApiError.conflict(
      'id',
      `background job ${id} has already ${job.status === 'completed' ? 'completed' : 'failed'}; it cannot be cancelled`,
    );
  },
);
