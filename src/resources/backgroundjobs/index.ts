import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { cancelJobRoute } from './cancel-job';
import { getJobRoute } from './get-job';

/** `/v2/backgroundjobs...`: a job's progress and its cancellation (docs/background-jobs.md). */
export function backgroundJobsRoutes(app: Hono<AppEnv>): void {
  getJobRoute(app);
  cancelJobRoute(app);
}
