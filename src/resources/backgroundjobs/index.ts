import { defineModule } from '../../modules/module';
import { cancelBackgroundJobRoute } from './cancel-background-job.route';
import { getBackgroundJobRoute } from './get-background-job.route';

/** `/v2/backgroundjobs...`: a job's progress and its cancellation (docs/background-jobs.md). */
export const backgroundJobsModule = defineModule({
  name: 'backgroundjobs',
  routes: [getBackgroundJobRoute, cancelBackgroundJobRoute],
});
