import { defineModule } from '../../modules/module';
import { confirmContactEmailRoute } from './confirm-contact-email.route';
import { contactEmailProofPageRoute } from './contact-email-proof-page.route';

/**
 * Chat visitors: as conversations and messages include them (contact-shape.ts), and the link a
 * visitor follows to prove the email they gave in the widget (`email-proof.ts`, `contact-email-proof-page.route.ts`, `confirm-contact-email.route.ts`).
 */
export const contactsModule = defineModule({
  name: 'contacts',
  routes: [contactEmailProofPageRoute, confirmContactEmailRoute],
});
