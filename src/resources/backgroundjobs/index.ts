import { defineModule } from '../../modules/module';
import { cancelJobRoute } from './cancel-job';
import { getJobRoute } from './get-job';

/** `/v2/backgroundjobs...`: a job's progress and its cancellation (docs/background-jobs.md). */
export const backgroundJobsModule = defineModule({ name: 'backgroundjobs', routes: [getJobRoute, cancelJobRoute] });
