import { defineModule } from '../../modules/module';

/** Chat visitors: only as conversations and messages include them (contact-shape.ts); their own endpoints come with the customers work. */
export const contactsModule = defineModule({ name: 'contacts' });
