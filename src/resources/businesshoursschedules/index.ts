import { defineModule } from '../../modules/module';
import { businessHoursSchedulesResource } from './businesshoursschedules.resource';

/** `/v2/businesshoursschedules...`: the generic CRUD routes (the spec has no bulk operations for them). */
export const businessHoursSchedulesModule = defineModule({
  name: 'businesshoursschedules',
  resources: [businessHoursSchedulesResource],
});
