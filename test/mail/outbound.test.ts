// Mail out: a teammate's reply leaves through the Worker's `EMAIL` binding (in the tests a stand-in
// that hands every message to a receiver we read, scripts/stack/mail-sender) from the write
// events, through the real mail queue: from the inbox, to the customer with the copies, signed,
// threaded under the mail before it (In-Reply-To, References), with its files. Notes and drafts
// stay in; a passing failure is tried again, a lasting one fails the entry with why (an event);
// an inbox auto-replies to a new ticket from mail (RFC 3834), never to a machine's mail.
import pg from 'pg';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { runCron } from '../support/cron';
import { newInstallation, rows } from '../support/db';
import { drained, eventsOf } from '../support/events';
import { uploadedFile } from '../support/files';
import { sendJobMessage } from '../support/queue';
import { eventually } from '../support/room';
import { TEST_PUBLIC_URL } from './limits';
import { newMessageId, planSendFailures, send, sentTo } from './support';
import { checkedFetch } from '../support/contract';

const SOLVED = 5;

let site: SeededInstallation;
let admin: string;
let agent: string;
let inbox: number;
let address: string;

/** An address no other test mails. */
let count = 0;
const customerAddress = (name: string) => `${name}.${Date.now().toString(36)}${++count}@customer.test`;

const outboundOf = (entryId: number) =>
  rows<{
    id: number;
    status: string;
    attempts: number;
    last_error: string | null;
    message_id: string | null;
    kind: string;
  }>('SELECT id, status, attempts, last_error, message_id, kind FROM outbound_mails WHERE thread_entry_id = $1', [
    entryId,
  ]);

/** A ticket made by mail from `from`: its id, and the Message-ID it came with. */
async function ticketByMail(
  from: string,
  subject: string,
  to = address,
): Promise<{ ticketId: number; messageId: string }> {
  const messageId = newMessageId();
  const sent = await send({ from, to, subject, messageId });
  expect(sent.status, sent.text).toBe(200);
  const [ticket] = await rows<{ id: number }>(
    'SELECT t.id FROM tickets t JOIN inbound_mails m ON m.ticket_id = t.id WHERE m.message_id = $1',
    [messageId],
  );
  return { ticketId: ticket!.id, messageId };
}

async function reply(ticketId: number, body: Record<string, unknown>, key = agent): Promise<number> {
  const answer = await api(`/v2/tickets/${ticketId}/messages.json`, { method: 'POST', key, body });
  expect(answer.status, answer.text).toBe(201);
  return answer.body.message.id;
}

const entry = async (id: number) => (await api(`/v2/messages/${id}.json`, { key: admin })).body.message;

/** The messages sent to `to`, once there are `n`. */
const sentCount = (to: string, n: number) =>
  eventually(async () => {
    const sent = await sentTo(to);
    return sent.length >= n ? sent : undefined;
  }, 20_000);

const base64 = (text: string) => Buffer.from(text).toString('base64');
const bare = (messageId: string) => messageId.replace(/^<|>$/g, '');

beforeAll(async () => {
  site = await newInstallation('mailout');
  admin = site.users.admin.apiKey;
  agent = site.users.agent.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: admin })).body.inboxes[0].id;
  const signed = await api(`/v2/inboxes/${inbox}.json`, {
    method: 'PATCH',
    key: admin,
    body: { inbox: { signature: '<p>The <b>Support</b> team<script>x()</script></p>' } },
  });
  expect(signed.status, signed.text).toBe(200);
  // every new installation's first inbox receives (and sends) at support@<site>.<MAIL_DOMAIN>
  expect(signed.body.inbox.localPart).toBe('support');
  address = `support@${site.siteName}.mail.localhost`;
});

describe("a teammate's reply", () => {
  it('goes to the customer once: from the inbox, signed, threaded under their mail, with its copies and files; their answer threads back', async () => {
    const ann = customerAddress('ann');
    const { ticketId, messageId } = await ticketByMail(`Ann Smith <${ann}>`, 'Broken printer');
    const file = await uploadedFile(agent, 'hello attachment', { filename: 'notes.txt', mimeType: 'text/plain' });
    const entryId = await reply(ticketId, {
      message: '<p>We are on it.</p>',
      cc: ['boss@customer.test', ann],
      bcc: ['audit@team.test'],
      files: [{ id: file }],
    });

    const [mail] = await sentCount(ann, 1);
    expect(mail).toMatchObject({
      from: { email: address, name: 'Support' },
      to: [ann],
      cc: ['boss@customer.test'],
      bcc: ['audit@team.test'],
      headers: { 'In-Reply-To': `<${messageId}>`, References: `<${messageId}>` },
      attachments: [
        { filename: 'notes.txt', type: 'text/plain', disposition: 'attachment', content: base64('hello attachment') },
      ],
    });
    expect(mail!.replyTo).toBeUndefined();
    expect(mail!.subject).toMatch(new RegExp(`^Re: Broken printer \\[#${ticketId}-[0-9a-f]{10}\\]$`));
    expect(mail!.html).toBe('<p>We are on it.</p><br><div class="signature"><p>The <b>Support</b> team</p></div>');
    expect(mail!.text).toBe('We are on it.\n\n-- \nThe Support team');

    const sent = await eventually(async () => {
      const read = await entry(entryId);
      return read.emailStatus === 'sent' ? read : undefined;
    });
    expect(sent).toMatchObject({ emailStatus: 'sent', emailError: null, emailMessageId: bare(mail!.messageId) });
    expect(await outboundOf(entryId)).toEqual([
      expect.objectContaining({ status: 'sent', attempts: 1, kind: 'reply', message_id: bare(mail!.messageId) }),
    ]);

    // the customer's mail client answers the message it got: the answer is on the ticket
    const answerId = newMessageId();
    const answered = await send({
      from: ann,
      to: address,
      subject: `Re: ${mail!.subject}`,
      messageId: answerId,
      inReplyTo: bare(mail!.messageId),
      body: 'Thanks!',
    });
    expect(answered.status, answered.text).toBe(200);
    const thread = await rows<{ text_body: string; customer_id: number | null }>(
      'SELECT text_body, customer_id FROM ticket_messages WHERE ticket_id = $1 ORDER BY id',
      [ticketId],
    );
    expect(thread.map((e) => e.text_body)).toEqual(['Hello, I need help.', 'We are on it.', 'Thanks!']);

    // the next reply answers that one, and refers to the whole thread
    await reply(ticketId, { message: 'Glad to help.' });
    const [, next] = await sentCount(ann, 2);
    expect(next!.headers).toEqual({
      'In-Reply-To': `<${answerId}>`,
      References: `<${messageId}> <${bare(mail!.messageId)}> <${answerId}>`,
    });
    expect(next!.subject).toBe(mail!.subject);
    expect(next!.cc ?? []).toEqual([]);
  });

  it('is not mailed when it is a note or a draft; a draft goes when it is sent', async () => {
    const bea = customerAddress('bea');
    const { ticketId } = await ticketByMail(bea, 'Kept in');
    const note = await reply(ticketId, { message: 'Internal: check the logs', threadType: 'note' });
    const draft = await reply(ticketId, { message: 'Not yet', isDraft: true });
    await drained(site.id);
    expect(await outboundOf(note)).toEqual([]);
    expect(await outboundOf(draft)).toEqual([]);
    expect((await entry(note)).emailStatus).toBeNull();
    expect(await sentTo(bea)).toEqual([]);

    const sending = await api(`/v2/messages/${draft}.json`, {
      method: 'PATCH',
      key: agent,
      body: { message: { isDraft: false } },
    });
    expect(sending.status, sending.text).toBe(200);
    const [mail] = await sentCount(bea, 1);
    expect(mail!.text).toContain('Not yet');
    expect(await sentTo(bea)).toHaveLength(1);
  });

  it('tells the customer of a ticket a teammate opens for them, unless notifyCustomer is false', async () => {
    const cy = customerAddress('cy');
    const opened = await api('/v2/tickets.json', {
      method: 'POST',
      key: agent,
      body: { subject: 'Your order', inbox, customer: { email: cy }, message: 'It shipped today.' },
    });
    expect(opened.status, opened.text).toBe(201);
    const [mail] = await sentCount(cy, 1);
    expect(mail!.subject).toMatch(new RegExp(`^Your order \\[#${opened.body.ticket.id}-[0-9a-f]{10}\\]$`));
    expect(mail!.headers ?? {}).toEqual({});

    const dee = customerAddress('dee');
    const quiet = await api('/v2/tickets.json', {
      method: 'POST',
      key: agent,
      body: {
        subject: 'Logged call',
        inbox,
        customer: { email: dee },
        message: 'Called about billing.',
        notifyCustomer: false,
      },
    });
    expect(quiet.status, quiet.text).toBe(201);
    await drained(site.id);
    expect(await rows('SELECT id FROM outbound_mails WHERE ticket_id = $1', [quiet.body.ticket.id])).toEqual([]);
  });

  it('from an inbox with no address to send from fails at once, saying why', async () => {
    const created = await api('/v2/inboxes.json', { method: 'POST', key: admin, body: { inbox: { name: 'Nowhere' } } });
    expect(created.status, created.text).toBe(201);
    const opened = await api('/v2/tickets.json', {
      method: 'POST',
      key: admin,
      body: {
        subject: 'No way out',
        inbox: created.body.inbox.id,
        customer: { email: customerAddress('eve') },
        message: 'Hi',
        notifyCustomer: false,
      },
    });
    expect(opened.status, opened.text).toBe(201);
    const entryId = await reply(opened.body.ticket.id, { message: 'An answer' }, admin);
    await drained(site.id);
    expect(await entry(entryId)).toMatchObject({
      emailStatus: 'failed',
      emailError: expect.stringContaining('no address to send from'),
    });
    expect(await outboundOf(entryId)).toEqual([]);
  });
});

describe('what a reply carries besides', () => {
  it("the satisfaction survey of a solving reply: the inbox's words and the link, which answers", async () => {
    const asking = await api(`/v2/inboxes/${inbox}.json`, {
      method: 'PATCH',
      key: admin,
      body: { inbox: { happinessRatingEnabled: true, happinessRatingMessage: '<p>Rate <b>us</b></p>' } },
    });
    expect(asking.status, asking.text).toBe(200);
    const jo = customerAddress('jo');
    const { ticketId } = await ticketByMail(jo, 'Rate me');
    await reply(ticketId, { message: 'Fixed it.', status: { id: SOLVED } });
    const [mail] = await sentCount(jo, 1);
    const survey = (await api(`/v2/tickets/${ticketId}/happinesssurvey.json`, { key: admin })).body.happinesssurvey;
    const path = new URL(survey.url).pathname;
    const link = `${TEST_PUBLIC_URL}${path}`;
    expect(mail!.html).toBe(
      `Fixed it.<div class="survey"><p>Rate <b>us</b></p><p><a href="${link}">${link}</a></p></div><br><div class="signature"><p>The <b>Support</b> team</p></div>`,
    );
    expect(mail!.text).toContain(`Rate us\n${link}`);
    // the link, on the Worker's real address, is the survey
    const answered = await checkedFetch(`${inject('workerUrl')}${path}`);
    expect(answered.status).toBe(200);
    expect(((await answered.json()) as { survey: { ticket: unknown } }).survey.ticket).toEqual({
      id: ticketId,
      subject: 'Rate me',
    });
    // a reply that solves nothing carries none
    const kay = customerAddress('kay');
    const other = await ticketByMail(kay, 'No survey');
    await reply(other.ticketId, { message: 'Looking.' });
    const [plain] = await sentCount(kay, 1);
    expect(plain!.html).not.toContain('survey');
    expect(
      (
        await api(`/v2/inboxes/${inbox}.json`, {
          method: 'PATCH',
          key: admin,
          body: { inbox: { happinessRatingEnabled: false } },
        })
      ).status,
    ).toBe(200);
  });
});

describe("the system triggers' notices to teammates", () => {
  const noticesTo = async (to: string, ticketId: number) =>
    (await sentTo(to)).filter((mail) => mail.subject.startsWith(`[#${ticketId}] `));
  const systemTrigger = async (key: string) => {
    const listed = await api('/v2/triggers.json', {
      key: admin,
      query: { filter: JSON.stringify({ isSystem: true }) },
    });
    return (listed.body.triggers as Array<{ id: number; systemKey: string }>).find((t) => t.systemKey === key)!.id;
  };
  const switchTrigger = async (key: string, state: 'active' | 'inactive') => {
    const switched = await api(`/v2/triggers/${await systemTrigger(key)}.json`, {
      method: 'PATCH',
      key: admin,
      body: { trigger: { state } },
    });
    expect(switched.status, switched.text).toBe(200);
  };
  let agentEmail: string;
  let adminEmail: string;
  let ownerEmail: string;

  beforeAll(async () => {
    const users = await rows<{ id: number; email: string }>('SELECT id, email FROM users WHERE installation_id = $1', [
      site.id,
    ]);
    agentEmail = users.find((u) => u.id === site.users.agent.id)!.email;
    adminEmail = users.find((u) => u.id === site.users.admin.id)!.email;
    ownerEmail = users.find((u) => u.id === site.users.owner.id)!.email;
  });

  it('tell an agent of a ticket assigned to them by someone else, and of each reply its customer adds', async () => {
    const mo = customerAddress('mo');
    const { ticketId } = await ticketByMail(`Mo Reed <${mo}>`, 'Assign me');
    const assigned = await api(`/v2/tickets/${ticketId}.json`, {
      method: 'PATCH',
      key: admin,
      body: { ticket: { agent: { id: site.users.agent.id } } },
    });
    expect(assigned.status, assigned.text).toBe(200);
    const [notice] = await eventually(async () => {
      const found = await noticesTo(agentEmail, ticketId);
      return found.length ? found : undefined;
    });
    expect(notice).toMatchObject({
      from: { email: address, name: 'Support' },
      to: [agentEmail.toLowerCase()],
      headers: { 'Auto-Submitted': 'auto-generated' },
    });
    expect(notice!.subject).toMatch(
      new RegExp(`^\\[#${ticketId}\\] Assigned to you: Assign me \\[#${ticketId}-[0-9a-f]{10}\\]$`),
    );
    expect(notice!.text).toBe(`Ticket #${ticketId} from Mo Reed <${mo}> is assigned to you.\nHello, I need help.`);

    const answered = await send({ from: mo, to: address, subject: `Re: ${notice!.subject}`, body: 'Any update?' });
    expect(answered.status).toBe(200);
    const notices = await eventually(async () => {
      const found = await noticesTo(agentEmail, ticketId);
      return found.length >= 2 ? found : undefined;
    });
    expect(notices.map((n) => n.subject.replace(/ \[#\d+-[0-9a-f]+\]$/, ''))).toEqual([
      `[#${ticketId}] Assigned to you: Assign me`,
      `[#${ticketId}] New reply: Assign me`,
    ]);
    expect(notices[1]!.text).toBe(`Mo Reed <${mo}> replied to ticket #${ticketId}.\nAny update?`);
    // the agent's own reply, a note, and a ticket they take themselves tell no one
    await reply(ticketId, { message: 'On it' });
    await reply(ticketId, { message: 'note', threadType: 'note' });
    const own = await api('/v2/tickets.json', {
      method: 'POST',
      key: agent,
      body: {
        subject: 'Mine',
        inbox,
        agent: { id: site.users.agent.id },
        customer: { email: customerAddress('nia') },
        message: 'x',
        notifyCustomer: false,
      },
    });
    expect(own.status, own.text).toBe(201);
    await drained(site.id);
    expect(await noticesTo(agentEmail, ticketId)).toHaveLength(2);
    expect(
      await rows("SELECT id FROM outbound_mails WHERE ticket_id = $1 AND kind = 'notification'", [own.body.ticket.id]),
    ).toEqual([]);
  });

  it("switched off, tell no one; the new-ticket notice, off to start with, tells the inbox's seated teammates", async () => {
    await switchTrigger('notify.assigned', 'inactive');
    const { ticketId } = await ticketByMail(customerAddress('ola'), 'Quiet');
    expect(
      (
        await api(`/v2/tickets/${ticketId}.json`, {
          method: 'PATCH',
          key: admin,
          body: { ticket: { agent: { id: site.users.agent.id } } },
        })
      ).status,
    ).toBe(200);
    await drained(site.id);
    expect(
      await rows("SELECT id FROM outbound_mails WHERE ticket_id = $1 AND kind = 'notification'", [ticketId]),
    ).toEqual([]);
    await switchTrigger('notify.assigned', 'active');

    const first = await ticketByMail(customerAddress('pat'), 'Nobody told');
    await drained(site.id);
    expect(
      await rows("SELECT id FROM outbound_mails WHERE ticket_id = $1 AND kind = 'notification'", [first.ticketId]),
    ).toEqual([]);
    await switchTrigger('notify.newTicket', 'active');
    const second = await ticketByMail(customerAddress('quin'), 'Everybody told');
    const [notice] = await eventually(async () => {
      const found = await noticesTo(adminEmail, second.ticketId);
      return found.length ? found : undefined;
    });
    expect(notice!.subject).toMatch(new RegExp(`^\\[#${second.ticketId}\\] New ticket: Everybody told`));
    expect([...(notice!.to as string[])].sort()).toEqual(
      expect.arrayContaining([adminEmail, agentEmail, ownerEmail].map((e) => e.toLowerCase())),
    );
    await switchTrigger('notify.newTicket', 'inactive');
  });
});

describe("an SLA policy's notifications", () => {
  it('mail its user and the assigned agent when a target comes due and when it is breached, once each', async () => {
    const urgent = (await api('/v2/ticketpriorities.json', { key: admin })).body.ticketpriorities.find(
      (p: { name: string }) => /urgent/i.test(p.name),
    ).id;
    const policy = await api('/v2/slas.json', {
      method: 'POST',
      key: admin,
      body: {
        sla: {
          name: 'Mail notices',
          displayOrder: 0,
          slainboxes: [{ inbox: { id: inbox } }],
          slaticketpriorities: [{ priority: { id: urgent }, hours: 1, minutes: 0 }],
          slanotifications: [
            { condition: 'warning', type: 'firstResponse', duration: 15, user: { id: site.users.admin.id } },
            {
              condition: 'breach',
              type: 'firstResponse',
              duration: 0,
              notifyAssignedUser: true,
              user: { id: site.users.admin.id },
            },
          ],
        },
      },
    });
    expect(policy.status, policy.text).toBe(201);
    const [adminUser] = await rows<{ email: string }>('SELECT email FROM users WHERE id = $1', [site.users.admin.id]);
    const [agentUser] = await rows<{ email: string }>('SELECT email FROM users WHERE id = $1', [site.users.agent.id]);
    const before = (await sentTo(adminUser!.email)).length;
    const opened = await api('/v2/tickets.json', {
      method: 'POST',
      key: admin,
      body: {
        subject: 'Clock is ticking',
        inbox,
        priority: { id: urgent },
        agent: { id: site.users.agent.id },
        customer: { email: customerAddress('lee') },
        message: 'Urgent!',
        notifyCustomer: false,
      },
    });
    expect(opened.status, opened.text).toBe(201);
    const ticketId = opened.body.ticket.id;
    await drained(site.id);
    const age = (minutes: number) =>
      rows(
        `UPDATE tickets SET created_at = created_at - make_interval(mins => $2), sla_check_at = now() - interval '1 second' WHERE id = $1`,
        [ticketId, minutes],
      );

    await age(50);
    await runCron();
    const warned = (await sentCount(adminUser!.email, before + 1)).slice(before);
    expect(warned).toEqual([
      expect.objectContaining({
        to: [adminUser!.email.toLowerCase()],
        subject: `SLA warning: first response of ticket #${ticketId}`,
        headers: { 'Auto-Submitted': 'auto-generated' },
      }),
    ]);
    expect(warned[0]!.text).toMatch(
      new RegExp(
        `^The first response of ticket #${ticketId} “Clock is ticking” is due at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\.$`,
      ),
    );
    const slaMail = async (to: string) => (await sentTo(to)).filter((mail) => mail.subject.startsWith('SLA '));
    expect(await slaMail(agentUser!.email)).toEqual([]);

    await age(11);
    await runCron();
    const breached = await eventually(async () => {
      const found = await slaMail(agentUser!.email);
      return found.length ? found : undefined;
    });
    expect(breached).toEqual([
      expect.objectContaining({ subject: `SLA breached: first response of ticket #${ticketId}` }),
    ]);
    expect([...(breached[0]!.to as string[])].sort()).toEqual(
      [adminUser!.email, agentUser!.email].map((e) => e.toLowerCase()).sort(),
    );
    await runCron();
    await drained(site.id);
    expect(
      await rows(
        "SELECT id FROM outbound_mails WHERE ticket_id = $1 AND kind = 'notification' AND mail->>'subject' LIKE 'SLA %'",
        [ticketId],
      ),
    ).toHaveLength(2);
    expect((await api(`/v2/slas/${policy.body.sla.id}.json`, { method: 'DELETE', key: admin })).status).toBe(204);
  });
});

describe('a send that fails', () => {
  it('for a while (a rate limit, an outage) is tried again after a backoff, and the customer gets it once', async () => {
    const fay = customerAddress('fay');
    const { ticketId } = await ticketByMail(fay, 'Try again');
    await planSendFailures(fay, ['E_RATE_LIMIT_EXCEEDED', 'E_INTERNAL_SERVER_ERROR']);
    const entryId = await reply(ticketId, { message: 'Third time lucky' });
    await sentCount(fay, 1);
    const [row] = await eventually(async () => {
      const found = await outboundOf(entryId);
      return found[0]?.status === 'sent' ? found : undefined;
    });
    expect(row).toMatchObject({ status: 'sent', attempts: 3, last_error: null });
    expect(await entry(entryId)).toMatchObject({ emailStatus: 'sent', emailError: null });
    expect(await sentTo(fay)).toHaveLength(1);
  });

  it('for good (a suppressed recipient) fails its entry with the reason, once, as an event', async () => {
    const gus = customerAddress('gus');
    const { ticketId } = await ticketByMail(gus, 'Bounced before');
    await planSendFailures(gus, ['E_RECIPIENT_SUPPRESSED']);
    const entryId = await reply(ticketId, { message: 'Will not arrive' });
    const failed = await eventually(async () => {
      const read = await entry(entryId);
      return read.emailStatus === 'failed' ? read : undefined;
    }, 20_000);
    expect(failed.emailError).toMatch(/^E_RECIPIENT_SUPPRESSED: /);
    expect(await outboundOf(entryId)).toEqual([expect.objectContaining({ status: 'failed', attempts: 1 })]);
    expect(await sentTo(gus)).toEqual([]);
    const events = await eventsOf(site.id, 'messages', entryId);
    expect(events.filter((e) => e.kind === 'updated')).toEqual([
      expect.objectContaining({
        actorSystem: 'mail',
        data: {
          emailStatus: { before: 'queued', after: 'failed' },
          emailError: { before: null, after: failed.emailError },
        },
      }),
    ]);
    // not an edit of the entry: no `thread.edited` line in the ticket's history
    await drained(site.id);
    const history = await api(`/v2/tickets/${ticketId}/activities.json`, { key: admin });
    expect(history.status, history.text).toBe(200);
    expect(history.body.ticketactivities.map((a: { eventType: string }) => a.eventType)).not.toContain('thread.edited');
  });
});

describe('the mail queue', () => {
  it('sends a message delivered twice once, and the cron sends one whose queue message was lost', async () => {
    const hal = customerAddress('hal');
    const { ticketId } = await ticketByMail(hal, 'Twice');
    const entryId = await reply(ticketId, { message: 'Once only' });
    await sentCount(hal, 1);
    const [row] = await eventually(async () => {
      const found = await outboundOf(entryId);
      return found[0]?.status === 'sent' ? found : undefined;
    });
    // as if its record were lost after the send: queued again, then two deliveries of its message at once
    await rows("UPDATE outbound_mails SET status = 'queued', next_attempt_at = now() WHERE id = $1", [row!.id]);
    await Promise.all(
      [1, 2].map((n) => sendJobMessage({ kind: 'mail.send', outboundIds: [row!.id], queuedAt: Date.now() + n })),
    );
    await sentCount(hal, 2);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await sentTo(hal)).toHaveLength(2);

    // a queued message whose queue message never came: the cron's sweep sends it
    await eventually(async () => ((await outboundOf(entryId))[0]?.status === 'sent' ? true : undefined));
    await rows(
      "UPDATE outbound_mails SET status = 'queued', next_attempt_at = now() - interval '2 minutes' WHERE id = $1",
      [row!.id],
    );
    await runCron();
    await sentCount(hal, 3);
  });

  it('sends a message whose row committed only after its queue message came, and not one that never commits', async () => {
    const una = customerAddress('una');
    const { ticketId } = await ticketByMail(una, 'Late commit');
    const entryId = await reply(ticketId, { message: 'The first' });
    await sentCount(una, 1);
    const [sent] = await eventually(async () => {
      const found = await outboundOf(entryId);
      return found[0]?.status === 'sent' ? found : undefined;
    });
    // the same message written again by a transaction that commits 2 s after its queue message is consumed
    const late = new pg.Client({ connectionString: inject('databaseUrl') });
    await late.connect();
    try {
      await late.query('BEGIN');
      const copy = `INSERT INTO outbound_mails (installation_id, inbox_id, ticket_id, thread_entry_id, kind, mail)
        SELECT installation_id, inbox_id, ticket_id, NULL, 'notification', mail FROM outbound_mails WHERE id = $1 RETURNING id`;
      const { rows: written } = await late.query<{ id: number }>(copy, [sent!.id]);
      const { rows: neverCommitted } = await late.query<{ id: number }>(
        'SELECT nextval(pg_get_serial_sequence($1, $2)) AS id',
        ['outbound_mails', 'id'],
      );
      await sendJobMessage({
        kind: 'mail.send',
        outboundIds: [written[0]!.id, Number(neverCommitted[0]!.id)],
        queuedAt: Date.now(),
      });
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await late.query('COMMIT');
    } finally {
      await late.end();
    }
    // looked for again 2 s later, it is there now: sent once
    await sentCount(una, 2);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await sentTo(una)).toHaveLength(2);
  });
});

describe("an inbox's auto-reply", () => {
  let autoAddress: string;

  beforeAll(async () => {
    const created = await api('/v2/inboxes.json', {
      method: 'POST',
      key: admin,
      body: {
        inbox: {
          name: 'Orders',
          localPart: 'orders',
          autoReplyEnabled: true,
          autoReplySubject: 'Got it: {{ticket.subject}}',
          autoReplyMessage: '<p>Hi {{customer.firstName}}, your ticket is {{ticket.id}}.</p>',
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    autoAddress = `orders@${site.siteName}.mail.localhost`;
  });

  it('answers a new ticket from mail once, marked as automatic, threaded under it, with the ticket in its words', async () => {
    const ida = customerAddress('ida');
    const { ticketId, messageId } = await ticketByMail(
      `"<i>Ida</i> Moss" <${ida}>`,
      'Where is my parcel?',
      autoAddress,
    );
    const [mail] = await sentCount(ida, 1);
    expect(mail).toMatchObject({
      from: { email: autoAddress, name: 'Orders' },
      to: [ida],
      headers: { 'Auto-Submitted': 'auto-replied', 'In-Reply-To': `<${messageId}>`, References: `<${messageId}>` },
    });
    expect(mail!.subject).toMatch(new RegExp(`^Got it: Where is my parcel\\? \\[#${ticketId}-[0-9a-f]{10}\\]$`));
    // what the customer wrote is text in the answer, never markup
    expect(mail!.html).toBe(`<p>Hi &lt;i&gt;Ida&lt;/i&gt;, your ticket is ${ticketId}.</p>`);
    const [row] = await rows<{ kind: string; thread_entry_id: number | null }>(
      'SELECT kind, thread_entry_id FROM outbound_mails WHERE ticket_id = $1',
      [ticketId],
    );
    expect(row).toEqual({ kind: 'autoReply', thread_entry_id: null });

    // their next message on the ticket is not a new ticket: no second auto-reply
    const again = await send({
      from: ida,
      to: autoAddress,
      subject: 'Re: Where is my parcel?',
      inReplyTo: messageId,
      body: 'Any news?',
    });
    expect(again.status).toBe(200);
    expect(await rows('SELECT id FROM outbound_mails WHERE ticket_id = $1', [ticketId])).toHaveLength(1);
  });

  it("is never sent to a machine's mail (bulk, an auto-reply, a bounce), to spam, nor to one of the helpdesk's own addresses", async () => {
    const robot = customerAddress('robot');
    const automatic = await ticketByMail(robot, 'Your weekly report', autoAddress);
    const bulk = await send({ from: robot, to: autoAddress, subject: 'Newsletter', headers: ['Precedence: bulk'] });
    expect(bulk.status).toBe(200);
    const vacation = await send({
      from: robot,
      to: autoAddress,
      subject: 'Out of office',
      headers: ['Auto-Submitted: auto-replied'],
    });
    expect(vacation.status).toBe(200);
    const ours = await ticketByMail(`support@other-site.mail.localhost`, 'From another helpdesk', autoAddress);
    const bounce = await send({
      from: 'Mail Delivery System <mailer-daemon@mx.customer.test>',
      to: autoAddress,
      subject: 'Undelivered Mail Returned to Sender',
      body: {
        contentType: 'multipart/report; report-type=delivery-status; boundary="r"',
        content: [
          '--r',
          'Content-Type: text/plain',
          '',
          'Your message could not be delivered.',
          '--r',
          'Content-Type: message/delivery-status',
          '',
          'Status: 5.1.1',
          '--r--',
        ].join('\r\n'),
      },
    });
    expect(bounce.status, bounce.text).toBe(200);
    const [bounceTicket] = await rows<{ id: number }>(
      "SELECT id FROM tickets WHERE installation_id = $1 AND subject = 'Undelivered Mail Returned to Sender'",
      [site.id],
    );
    const spam = await send({
      from: customerAddress('spammer'),
      to: autoAddress,
      subject: 'You won',
      headers: ['X-Spam-Score: 12'],
    });
    expect(spam.status).toBe(200);
    const [spamTicket] = await rows<{ id: number }>(
      "SELECT id FROM tickets WHERE installation_id = $1 AND subject = 'You won'",
      [site.id],
    );
    const robotTickets = await rows<{ id: number }>(
      "SELECT t.id FROM tickets t JOIN customers c ON c.id = t.customer_id WHERE c.email = $1 AND t.subject <> 'Your weekly report'",
      [robot],
    );
    expect(robotTickets).toHaveLength(2);
    // the auto-reply's subscriber has had every message's event
    await drained(site.id);
    const answered = await rows('SELECT id FROM outbound_mails WHERE ticket_id = ANY($1::int[])', [
      [ours.ticketId, spamTicket!.id, bounceTicket!.id, ...robotTickets.map((t) => t.id)],
    ]);
    expect(answered).toEqual([]);
    // (the first, plain, message of the robot's address was answered: nothing marked it automatic)
    expect(await rows('SELECT id FROM outbound_mails WHERE ticket_id = $1', [automatic.ticketId])).toHaveLength(1);
  });
});
