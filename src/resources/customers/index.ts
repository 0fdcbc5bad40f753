import { defineModule } from '../../modules/module';
import { customersResource } from './customers.resource';
import { mergeRoute } from './merge';

/** `/v2/customers...`: the generic routes (contacts written inline, companies linked) and merge. */
export const customersModule = defineModule({
  name: 'customers',
  resources: [customersResource],
  routes: [mergeRoute],
});
