import { defineModule } from '../modules/module';
import { getHealthRoute } from './get-health.route';

/** `/health`, for load balancers and monitors: public, cheap, one query. */
export const healthModule = defineModule({ name: 'health', routes: [getHealthRoute] });
