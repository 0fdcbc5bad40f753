import { defineModule } from '../../modules/module';

/** Customers: only as other resources include them (customer-shape.ts); their own endpoints come with the customers work. */
export const customersModule = defineModule({ name: 'customers' });
