import { defineModule } from '../../modules/module';
import { businessHoursResource } from './businesshours.resource';
import { deleteBusinessHourRoute } from './delete-business-hour.route';

/**
 * `/v2/businesshours...`: the generic list, get, create and PATCH/PUT (the spec has no bulk
 * operations for them), and a delete that takes the schedules and holidays along.
 */
export const businessHoursModule = defineModule({
  name: 'businesshours',
  resources: [businessHoursResource],
  routes: [deleteBusinessHourRoute],
});
