import { defineModule } from '../../modules/module';
import { receiveMail } from './receive';

/** Mail in (the `email()` handler: tickets and replies from mail). */
export const mailModule = defineModule({ name: 'mail', email: receiveMail });
