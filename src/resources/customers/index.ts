import { defineModule } from '../../modules/module';
import { customersResource } from './customers.resource';
import { mergeCustomerRoute } from './merge-customer.route';

/** `/v2/customers...`: the generic routes (contacts written inline, companies linked) and merge. */
export const customersModule = defineModule({
  name: 'customers',
  resources: [customersResource],
  routes: [mergeCustomerRoute],
});
