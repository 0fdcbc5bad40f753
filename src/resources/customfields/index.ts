import { defineModule } from '../../modules/module';
import { customFieldOptionsResource } from './customfieldoptions.resource';
import { customFieldsResource } from './customfields.resource';

/** `/v2/customfields...` and `/v2/customfieldoptions...`: the generic routes. */
export const customFieldsModule = defineModule({
  name: 'customfields',
  resources: [customFieldsResource, customFieldOptionsResource],
});
