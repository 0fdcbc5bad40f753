import { sql } from 'drizzle-orm';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../app-env';
import { AGENTS, requireRole } from '../../auth/access';
import { backgroundJobs } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { addRoute, pathParam } from '../../http/route';
import { errorBodySchema } from '../../openapi/schemas';
import { parseIncludes } from '../engine/list-params';
import { finishRecord } from '../engine/record-json';
import { jobJson, jobOf, jobRecordSchema, jobUsersJson } from './job-record';

async function getJob(c: Context<AppEnv>) {
  const who = c.var.principal;
  requireRole(who, AGENTS);
  const id = pathParam(c, 'jobId');
  const includes = parseIncludes(c.req.query('includes'), ['users']);
  const withUsers = includes.includes('users');
  const { rows } = await c.var.db.http.execute(sql`
    SELECT ${jobJson} AS record ${withUsers ? sql`, ${jobUsersJson} AS users` : sql``}
    FROM ${backgroundJobs} WHERE ${jobOf(who, id)}`);
  const row = rows[0];
  if (!row) throw ApiError.notFound('jobId', `background job ${id} not found`);
  const included = withUsers ? { users: (row.users as Record<string, unknown>[]).map(finishRecord) } : {};
  return c.json({ backgroundjob: row.record, included });
}

const answer = z.object({ backgroundjob: jobRecordSchema, included: z.record(z.string(), z.array(z.unknown())) });

/** `GET /v2/backgroundjobs/{jobId}.json`: a job's status and progress. */
export function getJobRoute(app: Hono<AppEnv>): void {
  addRoute(app, {
    method: 'get',
    path: '/v2/backgroundjobs/{jobId}.json',
    tag: 'backgroundjobs',
    summary: 'Get a background job: its status and progress',
    query: [{ name: 'includes', description: 'comma list of: users, all', schema: { type: 'string' } }],
    responses: {
      200: { description: 'the job', schema: answer },
      ...Object.fromEntries([400, 401, 403, 404].map((status) => [status, { description: 'error', schema: errorBodySchema }])),
    },
  }, getJob);
}
