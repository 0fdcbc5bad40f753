/**
 * The integer codes of background jobs, defined once: the API shows them (`jobType`,
 * `jobAction`), cancelling addresses a job by them, and docs/background-jobs.md lists them.
 */
export const JOB_TYPES = {
  companies: 1,
} as const;

export const JOB_ACTIONS = {
  import: 1,
  bulkUpdate: 2,
  bulkDelete: 3,
  migrate: 4,
} as const;

export type JobType = (typeof JOB_TYPES)[keyof typeof JOB_TYPES];
export type JobAction = (typeof JOB_ACTIONS)[keyof typeof JOB_ACTIONS];

const describe = (codes: Record<string, number>) =>
  Object.entries(codes)
    .map(([name, code]) => `${code} ${name}`)
    .join(', ');

/** For the document: `1 companies`. */
export const JOB_TYPE_CODES = describe(JOB_TYPES);
export const JOB_ACTION_CODES = describe(JOB_ACTIONS);
