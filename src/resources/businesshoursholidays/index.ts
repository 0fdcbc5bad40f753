import { defineModule } from '../../modules/module';
import { businessHoursHolidaysResource } from './businesshoursholidays.resource';

/** `/v2/businesshoursholidays...`: the generic CRUD routes (the spec has no bulk operations for them). */
export const businessHoursHolidaysModule = defineModule({
  name: 'businesshoursholidays',
  resources: [businessHoursHolidaysResource],
});
