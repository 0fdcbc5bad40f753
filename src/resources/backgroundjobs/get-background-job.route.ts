import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { AGENTS } from '../../auth/access';
import { backgroundJobs } from '../../db/schema';
import { finishRecord, includesParam, recordSchema } from '../../engine';
import { ApiError } from '../../http/errors';
import { integerParam } from '../../http/params';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { userShape } from '../users/user-shape';
import { jobJson, jobOf, jobRecordSchema, jobUsersJson } from './job-record';

const answer = z
  .object({
    backgroundjob: jobRecordSchema,
    included: z.object({ users: z.array(recordSchema(userShape)).optional() }),
  })
  .meta({ id: 'BackgroundJobBody' });

/** `GET /v2/backgroundjobs/{jobId}.json`: a job's status and progress. */
export const getBackgroundJobRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/backgroundjobs/{jobId}.json',
    tag: 'BackgroundJobs',
    operationId: 'getBackgroundJob',
    roles: AGENTS,
    summary: 'Get a background job: its status and progress',
    description:
      "One of the installation's background jobs (an import, a bulk change, a migration), whoever started it: its status (`queued`, `running`, `completed`, `failed` or `cancelled`), rows total, done and failed, and the problems of the rows that failed, by line. The job's internal payload is never shown. A job of another installation, or none, is a 404; `includes=users` adds the user who started it. See docs/background-jobs.md.",
    request: {
      params: z.object({ jobId: integerParam("the job's id") }),
      query: z.object({ includes: includesParam(['users']) }),
    },
    example: { params: { jobId: 1 } },
    responses: { 200: jsonResponse('the job', answer) },
  },
  async (c) => {
    const who = c.var.principal;
    const { jobId: id } = c.req.valid('param');
    const withUsers = c.req.valid('query').includes.includes('users');
    const { rows } = await c.var.db.http.execute(sql`
    SELECT ${jobJson} AS record ${withUsers ? sql`, ${jobUsersJson} AS users` : sql``}
    FROM ${backgroundJobs} WHERE ${jobOf(who, id)}`);
    const row = rows[0];
    if (!row) throw ApiError.notFound('jobId', `background job ${id} not found`);
    const included = withUsers ? { users: (row.users as Record<string, unknown>[]).map(finishRecord) } : {};
    return c.json({ backgroundjob: row.record as z.infer<typeof jobRecordSchema>, included }, 200);
  },
);
