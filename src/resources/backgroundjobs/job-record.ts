import { and, eq, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Actor } from '../../auth/principal';
import { JOB_ACTION_CODES, JOB_TYPE_CODES } from '../../jobs/job-codes';
import { BACKGROUND_JOB_STATUSES, backgroundJobs, users } from '../../db/schema';
import { jsonObject, literal, recordJson, refJson } from '../../engine';
import { userShape } from '../users/user-shape';

/**
 * A job as it reads. `type` is every record's type name, so the job's integer codes are
 * `jobType` and `jobAction` (docs/background-jobs.md). The payload is the worker's own.
 */
export const jobJson: SQL = jsonObject({
  id: backgroundJobs.id,
  type: literal('backgroundjobs'),
  jobType: backgroundJobs.type,
  jobAction: backgroundJobs.action,
  status: backgroundJobs.status,
  rowsTotal: backgroundJobs.rowsTotal,
  rowsDone: backgroundJobs.rowsDone,
  rowsFailed: backgroundJobs.rowsFailed,
  problems: backgroundJobs.problems,
  createdAt: backgroundJobs.createdAt,
  createdBy: refJson(backgroundJobs.createdBy, 'users'),
  updatedAt: backgroundJobs.updatedAt,
  startedAt: backgroundJobs.startedAt,
  finishedAt: backgroundJobs.finishedAt,
});

/** `includes=users`: the user who started the job. */
export const jobUsersJson: SQL = sql`(SELECT coalesce(json_agg(${recordJson(userShape)}), '[]'::json) FROM ${users} WHERE ${users.id} = ${backgroundJobs.createdBy})`;

/** The caller's installation's job with this id: another installation's job is simply not there. */
export function jobOf(who: Actor, id: number): SQL {
  return and(eq(backgroundJobs.installationId, who.installationId), eq(backgroundJobs.id, id))!;
}

const reference = z.object({ id: z.number().int(), type: z.string() });
const time = z.iso.datetime();

export const jobRecordSchema = z
  .object({
    id: z.number().int(),
    type: z.literal('backgroundjobs'),
    jobType: z.number().int().describe(JOB_TYPE_CODES),
    jobAction: z.number().int().describe(JOB_ACTION_CODES),
    status: z.enum(BACKGROUND_JOB_STATUSES),
    rowsTotal: z.number().int(),
    rowsDone: z.number().int(),
    rowsFailed: z.number().int(),
    problems: z.array(z.object({ line: z.number().int().optional(), reason: z.string() }).loose()),
    createdAt: time,
    createdBy: reference.nullable(),
    updatedAt: time,
    startedAt: time.nullable(),
    finishedAt: time.nullable(),
  })
  .meta({ id: 'BackgroundJob' });
