import { defineModule } from '../../modules/module';
import { downloadOriginalMessageRoute } from './download-original-message.route';
import { autoReplies } from './outbound/auto-replies.subscriber';
import { SEND_KIND } from './outbound/queue-mail';
import { replyMail } from './outbound/reply-mail.subscriber';
import { sendMail, sweepOutbound } from './outbound/send-mail';
import { slaNotices } from './outbound/sla-notices.subscriber';
import { teammateNotices } from './outbound/teammate-notices.subscriber';
import { sweepRawMail } from './raw-sweep';
import { receiveMail } from './receive';

/**
 * Mail in and out. In: the `email()` handler (tickets and replies from mail, auto-replies), the
 * messages as received, and their sweep. Out (`outbound/`): teammates' replies mailed to the
 * customer, SLA notifications and the system triggers' notices to teammates, from the write events, sent through the mail
 * queue by the `EMAIL` binding, retried, and the cron that finds lost sends.
 */
export const mailModule = defineModule({
  name: 'mail',
  routes: [downloadOriginalMessageRoute],
  email: receiveMail,
  subscribers: [replyMail, autoReplies, slaNotices, teammateNotices],
  consumers: { [SEND_KIND]: sendMail },
  cron: { rawMailSweep: sweepRawMail, outboundSweep: sweepOutbound },
});
