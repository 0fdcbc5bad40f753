import { sql } from 'drizzle-orm';
import type { Subscriber } from '../../../events/subscriber';
import { escapeHtml, messageText } from '../../../lib/html/message-body';
import type { SendingInbox } from '../mail-address';
import { fromInbox, headerText, SENDER_COLUMN } from './outgoing-mail';
import { queueSends, writeOutbound } from './queue-mail';

/** A ticket's SLA target states, by the target their policy's notifications name (`sla_notifications.type`). */
const TARGETS = {
  slaFirstResponseStatus: { type: 'firstResponse', due: 'sla_first_response_due_at', label: 'first response' },
  slaNextReplyStatus: { type: 'replyTime', due: 'sla_next_reply_due_at', label: 'next reply' },
  slaResolutionStatus: { type: 'resolutionTime', due: 'sla_resolution_due_at', label: 'resolution' },
} as const;

type TargetProperty = keyof typeof TARGETS;

interface NoticeRow {
  ticket_id: number;
  subject: string;
  inbox_id: number;
  sender: SendingInbox;
  due_at: string | null;
  recipients: string[] | null;
}

/**
 * An SLA policy's notifications, by mail: when the cron finds a target of a ticket coming due
 * (`warning`) or breached, each notification of the ticket's policy for that target and
 * condition goes to its `user` and, with `notifyAssignedUser`, to the ticket's agent (live
 * teammates with an address, each once), in one message from the ticket's inbox, marked
 * `Auto-Submitted: auto-generated` (RFC 3834: nothing should answer it).
 */
export const slaNotices: Subscriber = {
  name: 'mail.slaNotices',
  does: "mails an SLA policy's notifications when the cron finds a target of the ticket coming due (`warning`) or breached: to each notification's teammate and, with `notifyAssignedUser`, the ticket's agent, in one message from the ticket's inbox",
  on: [{ recordType: 'tickets', kinds: ['updated'], changed: Object.keys(TARGETS) }],
  async handle(event, { tx, env, afterCommit }) {
    for (const property of Object.keys(TARGETS) as TargetProperty[]) {
      const after = (event.data[property] as { after?: unknown } | undefined)?.after;
      if (after !== 'warning' && after !== 'breached') continue;
      const target = TARGETS[property];
      const condition = after === 'warning' ? 'warning' : 'breach';
      const { rows } = await tx.execute(sql`
        SELECT t.id AS ticket_id, t.subject, t.inbox_id, ${SENDER_COLUMN},
               to_char(${sql.raw(`t.${target.due}`)} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI "UTC"') AS due_at,
               (SELECT array_agg(DISTINCT lower(u.email)) FROM sla_notifications s
                  JOIN users u ON u.id = s.user_id OR (s.notify_assigned_user AND u.id = t.agent_id)
                 WHERE s.sla_id = t.sla_id AND s.state = 'active' AND s.condition = ${condition} AND s.type = ${target.type}
                   AND u.state = 'active' AND u.email <> '') AS recipients
          FROM tickets t JOIN inboxes i ON i.id = t.inbox_id JOIN installations n ON n.id = t.installation_id
         WHERE t.id = ${event.recordId} AND t.installation_id = ${event.installationId} AND t.sla_id IS NOT NULL`);
      const notice = rows[0] as unknown as NoticeRow | undefined;
      if (!notice?.recipients?.length) continue;
      const sender = fromInbox(env, notice.sender);
      if (!sender) continue;
      const ticket = `ticket #${notice.ticket_id} “${headerText(notice.subject)}”`;
      const sentence =
        after === 'warning'
          ? `The ${target.label} of ${ticket} is due at ${notice.due_at}.`
          : `The ${target.label} of ${ticket} was due at ${notice.due_at}: its SLA target is breached.`;
      const html = `<p>${escapeHtml(sentence)}</p>`;
      const id = await writeOutbound(tx, {
        installationId: event.installationId,
        inboxId: Number(notice.inbox_id),
        ticketId: Number(notice.ticket_id),
        threadEntryId: null,
        kind: 'notification',
        mail: {
          ...sender,
          // Email Service takes 50 recipients a message
          to: notice.recipients.slice(0, 50),
          cc: [],
          bcc: [],
          subject: `SLA ${after === 'warning' ? 'warning' : 'breached'}: ${target.label} of ticket #${notice.ticket_id}`,
          html,
          text: messageText(html),
          headers: { 'Auto-Submitted': 'auto-generated' },
          files: [],
        },
      });
      if (id !== undefined) afterCommit(() => queueSends(env, [id]));
    }
  },
};
