import { sql } from 'drizzle-orm';
import type { Env } from '../../../app-env';
import type { Transaction } from '../../../db/client';
import type { StoredEvent, Subscriber } from '../../../events/subscriber';
import { escapeHtml, messageText } from '../../../lib/html/message-body';
import { systemTriggersOn, type SystemTriggerKey } from '../../triggers/system-triggers';
import type { SendingInbox } from '../mail-address';
import { fromInbox, replySubject, SENDER_COLUMN } from './outgoing-mail';
import { queueSends, writeOutbound } from './queue-mail';

interface TicketRow {
  subject: string;
  agent_id: number | null;
  inbox_id: number;
  sender: SendingInbox;
  customer: string;
  /** the entry the notice shows: the one named, else the latest the customer sees */
  entry_html: string | null;
}

async function readTicket(
  tx: Transaction,
  installationId: number,
  ticketId: number,
  entryId?: number,
): Promise<TicketRow | undefined> {
  const { rows } = await tx.execute(sql`
    SELECT t.subject, t.agent_id, t.inbox_id, ${SENDER_COLUMN},
           trim(concat_ws(' ', nullif(trim(c.first_name || ' ' || c.last_name), ''), '<' || nullif(c.email, '') || '>')) AS customer,
           (SELECT m.html_body FROM ticket_messages m WHERE m.ticket_id = t.id AND m.state = 'active' AND NOT m.is_draft AND m.thread_type = 'message'
               ${entryId === undefined ? sql`` : sql`AND m.id = ${entryId}`} ORDER BY m.id DESC LIMIT 1) AS entry_html
      FROM tickets t JOIN inboxes i ON i.id = t.inbox_id JOIN installations n ON n.id = t.installation_id JOIN customers c ON c.id = t.customer_id
     WHERE t.id = ${ticketId} AND t.installation_id = ${installationId} AND t.state = 'active'`);
  return rows[0] as unknown as TicketRow | undefined;
}

/** Live teammates' addresses, each once: of `userIds`, or of everyone with a seat who works the whole inbox. */
async function addresses(
  tx: Transaction,
  installationId: number,
  who: { userIds: number[] } | { inboxId: number },
  skip: number | null,
): Promise<string[]> {
  const { rows } = await tx.execute(
    'userIds' in who
      ? sql`SELECT DISTINCT lower(email) AS email FROM users WHERE installation_id = ${installationId} AND state = 'active' AND email <> ''
            AND id IN (SELECT jsonb_array_elements_text(${JSON.stringify(who.userIds)}::jsonb)::int) AND id IS DISTINCT FROM ${skip}::int`
      : sql`SELECT DISTINCT lower(u.email) AS email FROM inbox_users iu JOIN users u ON u.id = iu.user_id
           WHERE iu.inbox_id = ${who.inboxId} AND iu.access = 'full' AND u.installation_id = ${installationId} AND u.state = 'active'
             AND u.role <> 'collaborator' AND u.email <> '' AND u.id IS DISTINCT FROM ${skip}::int`,
  );
  return rows.map((row) => String(row.email)).slice(0, 50);
}

/** What a notice says: a line of what happened, then the message it is about. */
async function writeNotice(
  tx: Transaction,
  env: Env,
  event: StoredEvent,
  ticketId: number,
  ticket: TicketRow,
  to: string[],
  what: string,
  lead: string,
): Promise<number | undefined> {
  if (to.length === 0) return undefined;
  const sender = fromInbox(env, ticket.sender);
  if (!sender) return undefined;
  const html = `<p>${escapeHtml(lead)}</p>${ticket.entry_html ? `<hr>${ticket.entry_html}` : ''}`;
  return writeOutbound(tx, {
    installationId: event.installationId,
    inboxId: Number(ticket.inbox_id),
    ticketId,
    threadEntryId: null,
    kind: 'notification',
    mail: {
      ...sender,
      to,
      cc: [],
      bcc: [],
      // the ticket's token: a teammate's answer by mail lands on the ticket (as a note: they are not its customer)
      subject: await replySubject(env, ticketId, `[#${ticketId}] ${what}: ${ticket.subject}`, { answer: false }),
      html,
      text: messageText(html),
      headers: { 'Auto-Submitted': 'auto-generated' },
      files: [],
    },
  });
}

const idOf = (value: unknown): number | null =>
  value !== null && typeof value === 'object' && Number.isInteger((value as { id?: unknown }).id)
    ? (value as { id: number }).id
    : null;

/**
 * The agent a ticket was made with (null: none). The drain may come to its `created` event after
 * a later change of its agent: then `undefined`, and the creation tells no one (that change's own
 * event tells the agent who has it now; the inbox need not hear of an unassigned ticket someone took).
 */
async function agentWhenMade(
  tx: Transaction,
  event: StoredEvent,
  ticket: TicketRow,
): Promise<number | null | undefined> {
  const { rows } = await tx.execute(sql`
    SELECT 1 FROM events
     WHERE installation_id = ${event.installationId} AND record_type = 'tickets' AND record_id = ${event.recordId} AND kind = 'updated' AND id > ${event.id} AND data ? 'agent'
     ORDER BY id LIMIT 1`);
  if (rows[0]) return undefined;
  return ticket.agent_id === null ? null : Number(ticket.agent_id);
}

/** The notice an event makes, when its system trigger is on: the outgoing message's id. */
async function noticeOf(
  tx: Transaction,
  env: Env,
  event: StoredEvent,
  on: Set<SystemTriggerKey>,
): Promise<number | undefined> {
  if (event.recordType === 'tickets') {
    const ticket = await readTicket(tx, event.installationId, event.recordId);
    if (!ticket) return undefined;
    const agent =
      event.kind === 'created'
        ? await agentWhenMade(tx, event, ticket)
        : ticket.agent_id === null
          ? null
          : Number(ticket.agent_id);
    if (agent === undefined) return undefined;
    // assigned: by a change of its agent, or made with one; not to who assigned it to themselves
    const assigned =
      event.kind === 'created' ? agent : idOf((event.data.agent as { after?: unknown } | undefined)?.after);
    if (assigned !== null && assigned === agent && assigned !== event.actorUserId && on.has('notify.assigned')) {
      const to = await addresses(tx, event.installationId, { userIds: [assigned] }, null);
      return writeNotice(
        tx,
        env,
        event,
        event.recordId,
        ticket,
        to,
        'Assigned to you',
        `Ticket #${event.recordId} from ${ticket.customer} is assigned to you.`,
      );
    }
    if (event.kind === 'created' && agent === null && on.has('notify.newTicket')) {
      const to = await addresses(tx, event.installationId, { inboxId: Number(ticket.inbox_id) }, event.actorUserId);
      return writeNotice(
        tx,
        env,
        event,
        event.recordId,
        ticket,
        to,
        'New ticket',
        `${ticket.customer} opened ticket #${event.recordId} in ${ticket.sender.name}; no one is assigned to it.`,
      );
    }
    return undefined;
  }
  if (event.recordType === 'messages' && event.kind === 'created' && on.has('notify.customerReply')) {
    if (
      event.data.author !== 'customer' ||
      event.data.opening === true ||
      event.data.isDraft === true ||
      event.data.threadType !== 'message'
    )
      return undefined;
    const ticketId = idOf(event.data.parent);
    if (ticketId === null) return undefined;
    const ticket = await readTicket(tx, event.installationId, ticketId, event.recordId);
    if (!ticket || ticket.agent_id === null) return undefined;
    const to = await addresses(tx, event.installationId, { userIds: [Number(ticket.agent_id)] }, event.actorUserId);
    return writeNotice(
      tx,
      env,
      event,
      ticketId,
      ticket,
      to,
      'New reply',
      `${ticket.customer} replied to ticket #${ticketId}.`,
    );
  }
  return undefined;
}

/**
 * The system triggers' mail to teammates (`triggers/system-triggers.ts`), each while it is on:
 * the agent a ticket is assigned to (unless they took it themselves), the assigned agent of each
 * message the customer adds, and (off to start with) the inbox's teammates of a new ticket no one
 * is assigned. From the ticket's inbox, marked `Auto-Submitted: auto-generated`, the message it is
 * about under a line saying what happened.
 */
export const teammateNotices: Subscriber = {
  name: 'mail.teammateNotices',
  does: "the system triggers' mail to teammates, each while it is on: the agent a ticket is assigned to, the assigned agent of a customer's new message, the inbox's teammates of a new unassigned ticket",
  on: [
    { recordType: 'tickets', kinds: ['created'] },
    { recordType: 'tickets', kinds: ['updated'], changed: ['agent'] },
    { recordType: 'messages', kinds: ['created'] },
  ],
  async handle(event, { tx, env, afterCommit }) {
    const on = await systemTriggersOn(tx, event.installationId);
    if (on.size === 0) return;
    const id = await noticeOf(tx, env, event, on);
    if (id !== undefined) afterCommit(() => queueSends(env, [id]));
  },
};
