import { defineModule } from '../../modules/module';
import { timeZonesResource } from './timezones.resource';

/** `/v2/timezones...`: the catalogue of time-zone ids (docs/resources/timezones.md). */
export const timeZonesModule = defineModule({ name: 'timezones', resources: [timeZonesResource] });
