import { defineModule } from '../../modules/module';
import { originalMessageRoute } from './original-route';
import { sweepRawMail } from './raw-sweep';
import { receiveMail } from './receive';

/** Mail in: the `email()` handler (tickets and replies from mail), the messages as received, and their sweep. */
export const mailModule = defineModule({ name: 'mail', routes: [originalMessageRoute], email: receiveMail, cron: { rawMailSweep: sweepRawMail } });
