import { defineModule } from '../../modules/module';
import { confirmEmailProofRoute, emailProofPageRoute } from './verify-email';

/**
 * Chat visitors: as conversations and messages include them (contact-shape.ts), and the link a
 * visitor follows to prove the email they gave in the widget (`email-proof.ts`, `verify-email.ts`).
 */
export const contactsModule = defineModule({ name: 'contacts', routes: [emailProofPageRoute, confirmEmailProofRoute] });
