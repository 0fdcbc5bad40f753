// Mail in: raw RFC 822 messages through the Worker's real `email()` handler in workerd (Miniflare's
// local Email Routing endpoint). A message for an inbox's address becomes a ticket, its sender a
// customer; a reply threads by In-Reply-To / References or by the subject's signed token; the
// same Message-ID twice makes one entry; bodies are sanitized and decoded from their charsets;
// refusals (no such inbox, too big, no sender, blacklisted, a sender sending too much) are
// answered with a reason and write no ticket.
import { createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEV_PM_TOKEN_KEY } from '../../scripts/worker-vars';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { runCron } from '../support/cron';
import { expectError } from '../support/errors';
import { drained, eventsSince, lastEventId } from '../support/events';
import { TEST_MAIL_MAX_BYTES } from './limits';
import { deliver, newMessageId, rawMail, send } from './support';
import { verifiedMailDomain } from '../support/mail-domains';

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;
let inbox: number;
let address: string;

const ticketsOf = (installationId: number) =>
  rows<{
    id: number;
    subject: string;
    customer_id: number;
    inbox_id: number;
    original_recipient: string | null;
    source: string | null;
  }>(
    `SELECT t.id, t.subject, t.customer_id, t.inbox_id, t.original_recipient, s.name AS source FROM tickets t LEFT JOIN ticket_sources s ON s.id = t.source_id
      WHERE t.installation_id = $1 ORDER BY t.id`,
    [installationId],
  );
const entriesOf = (ticketId: number) =>
  rows<{
    id: number;
    thread_type: string;
    customer_id: number | null;
    html_body: string;
    text_body: string;
    email_message_id: string | null;
  }>(
    'SELECT id, thread_type, customer_id, html_body, text_body, email_message_id FROM ticket_messages WHERE ticket_id = $1 ORDER BY id',
    [ticketId],
  );
const outcomes = (installationId: number) =>
  rows<{ message_id: string; outcome: string; reason: string | null; ticket_id: number | null }>(
    'SELECT message_id, outcome, reason, ticket_id FROM inbound_mails WHERE installation_id = $1 ORDER BY id',
    [installationId],
  );

beforeAll(async () => {
  site = await newInstallation('mail');
  other = await newInstallation('mail-other');
  admin = site.users.admin.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: admin })).body.inboxes[0].id;
  // the inbox's own address outside the mail domain receives on a domain its installation verified
  await verifiedMailDomain(admin, `${site.siteName}.example`);
  await verifiedMailDomain(admin, 'acme-mail.test');
  const named = await api(`/v2/inboxes/${inbox}.json`, {
    method: 'PATCH',
    key: admin,
    body: { inbox: { localPart: 'support', email: `help@${site.siteName}.example` } },
  });
  expect(named.status, named.text).toBe(200);
  address = `support@${site.siteName}.mail.localhost`;
});

describe('a new message', () => {
  it("becomes a ticket in the inbox of its address, from a customer found or made by the sender's address", async () => {
    const mark = await lastEventId(site.id);
    const messageId = newMessageId();
    const sent = await send({
      from: 'Ada Lovelace <ada@customer.test>',
      to: address,
      subject: 'Printer on fire',
      messageId,
      body: 'It is on fire.\r\n\r\nPlease help.\r\nAda',
    });
    expect(sent, sent.text).toMatchObject({ status: 200 });
    const [ticket] = (await ticketsOf(site.id)).filter((t) => t.subject === 'Printer on fire');
    expect(ticket).toMatchObject({ inbox_id: inbox, original_recipient: address, source: 'Email' });
    const [entry, ...more] = await entriesOf(ticket!.id);
    expect(more).toEqual([]);
    expect(entry).toMatchObject({
      thread_type: 'message',
      customer_id: ticket!.customer_id,
      html_body: '<p>It is on fire.</p><p>Please help.<br>Ada</p>',
      email_message_id: messageId,
    });
    const customer = (await api(`/v2/customers/${ticket!.customer_id}.json`, { key: admin })).body.customer;
    expect(customer).toMatchObject({ email: 'ada@customer.test', firstName: 'Ada', lastName: 'Lovelace' });
    // through the API, as any ticket
    const read = await api(`/v2/tickets/${ticket!.id}.json`, { key: admin });
    expect(read.body.ticket).toMatchObject({
      subject: 'Printer on fire',
      originalRecipient: address,
      inbox: { id: inbox },
    });
    expect(await outcomes(site.id)).toContainEqual({
      message_id: messageId,
      outcome: 'ticket',
      reason: null,
      ticket_id: ticket!.id,
    });
    await drained(site.id);
    const events = await eventsSince(site.id, mark);
    expect(events.map((e) => `${e.recordType}:${e.kind}`)).toEqual(
      expect.arrayContaining(['tickets:created', 'messages:created', 'inboundmails:created']),
    );
    expect(events.find((e) => e.recordType === 'tickets')).toMatchObject({ actorSystem: 'mail' });
  });

  it("reaches an inbox by its own address too, and a known sender's tickets go to the same customer", async () => {
    const before = (await ticketsOf(site.id)).length;
    const sent = await send({
      from: 'ada@customer.test',
      to: `help@${site.siteName}.example`,
      subject: 'Second question',
    });
    expect(sent.status, sent.text).toBe(200);
    const tickets = await ticketsOf(site.id);
    expect(tickets).toHaveLength(before + 1);
    const ada = tickets
      .filter((t) => t.subject === 'Printer on fire' || t.subject === 'Second question')
      .map((t) => t.customer_id);
    expect(new Set(ada).size).toBe(1);
  });

  it('delivered twice (the same Message-ID) makes one thread entry', async () => {
    const messageId = newMessageId();
    const raw = rawMail({ from: 'bob@customer.test', to: address, subject: 'Twice', messageId });
    expect((await deliver(raw, { from: 'bob@customer.test', to: address })).status).toBe(200);
    expect((await deliver(raw, { from: 'bob@customer.test', to: address })).status).toBe(200);
    const twice = (await ticketsOf(site.id)).filter((t) => t.subject === 'Twice');
    expect(twice).toHaveLength(1);
    expect((await entriesOf(twice[0]!.id)).length).toBe(1);
    expect((await outcomes(site.id)).filter((o) => o.message_id === messageId).map((o) => o.outcome)).toEqual([
      'ticket',
      'duplicate',
    ]);
  });

  it('from a new sender several at once makes one customer; one message delivered twice at once makes one entry', async () => {
    const sent = await Promise.all(
      [1, 2, 3, 4].map((n) => send({ from: 'ivy@customer.test', to: address, subject: `At once ${n}` })),
    );
    expect(sent.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const atOnce = (await ticketsOf(site.id)).filter((t) => t.subject.startsWith('At once'));
    expect(atOnce).toHaveLength(4);
    expect(new Set(atOnce.map((t) => t.customer_id)).size).toBe(1);
    const messageId = newMessageId();
    const raw = rawMail({ from: 'ivy@customer.test', to: address, subject: 'Twice at once', messageId });
    const twice = await Promise.all([1, 2].map(() => deliver(raw, { from: 'ivy@customer.test', to: address })));
    expect(twice.map((r) => r.status)).toEqual([200, 200]);
    expect((await ticketsOf(site.id)).filter((t) => t.subject === 'Twice at once')).toHaveLength(1);
    expect(
      (await outcomes(site.id))
        .filter((o) => o.message_id === messageId)
        .map((o) => o.outcome)
        .sort(),
    ).toEqual(['duplicate', 'ticket']);
  });

  it("takes a body's NUL characters out and a Message-ID longer than an index holds by its digest, threading a reply to it still", async () => {
    // (a NUL in a header never reaches the handler: the local harness refuses it as a header value)
    const longId = `${'x'.repeat(3_000)}@customer.test`;
    const raw = rawMail({
      from: 'jack@customer.test',
      to: address,
      subject: 'Nul in subject',
      messageId: longId,
      body: 'Line one\u0000 and more',
    });
    const sent = await Promise.all([1, 2].map(() => deliver(raw, { from: 'jack@customer.test', to: address })));
    expect(
      sent.map((r) => r.status),
      sent[0]!.text,
    ).toEqual([200, 200]);
    const [nul] = (await ticketsOf(site.id)).filter((t) => t.subject === 'Nul in subject');
    expect((await entriesOf(nul!.id)).map((e) => e.text_body)).toEqual(['Line one and more']);
    const reply = await send({
      from: 'jack@customer.test',
      to: address,
      subject: 'Re: Nul',
      inReplyTo: longId,
      body: 'Following up',
    });
    expect(reply.status).toBe(200);
    expect((await entriesOf(nul!.id)).map((e) => e.text_body)).toEqual(['Line one and more', 'Following up']);
  });

  it('forwarded by a colleague is a new ticket of theirs, with the forwarded text whole and the attached message a file', async () => {
    const inner = [
      'From: Zed Customer <zed@customer.test>',
      'To: someone@team.test',
      'Subject: My invoice is wrong',
      'Message-ID: <inner.1@customer.test>',
      '',
      'The total is off by 10.',
    ].join('\r\n');
    const body = {
      contentType: 'multipart/mixed; boundary="fwd"',
      content: [
        '--fwd',
        'Content-Type: text/plain; charset=utf-8',
        '',
        'Can you take this one?',
        '',
        '---------- Forwarded message ---------',
        'From: Zed Customer <zed@customer.test>',
        'Subject: My invoice is wrong',
        '',
        'The total is off by 10.',
        '--fwd',
        'Content-Type: message/rfc822',
        'Content-Disposition: attachment; filename="original.eml"',
        '',
        inner,
        '--fwd--',
      ].join('\r\n'),
    };
    const sent = await send({
      from: 'Colleague <col@team.test>',
      to: address,
      subject: 'Fwd: My invoice is wrong',
      body,
    });
    expect(sent.status, sent.text).toBe(200);
    const [ticket] = (await ticketsOf(site.id)).filter((t) => t.subject === 'Fwd: My invoice is wrong');
    const [entry] = await entriesOf(ticket!.id);
    expect(entry!.text_body).toContain('Can you take this one?');
    expect(entry!.text_body).toContain('---------- Forwarded message ---------');
    expect(entry!.text_body).toContain('The total is off by 10.');
    const files = await rows<{ name: string; content_type: string }>(
      'SELECT f.name, f.content_type FROM files f JOIN ticket_message_files mf ON mf.file_id = f.id WHERE mf.message_id = $1',
      [entry!.id],
    );
    expect(files).toEqual([{ name: 'original.eml', content_type: 'message/rfc822' }]);
    const [customer] = await rows<{ email: string }>('SELECT c.email FROM customers c WHERE c.id = $1', [
      ticket!.customer_id,
    ]);
    expect(customer!.email).toBe('col@team.test');
  });

  it("reads an HTML-only message's character references as a browser does: named, decimal and hex", async () => {
    const sent = await send({
      from: 'ines@customer.test',
      to: address,
      subject: 'Entities',
      body: {
        contentType: 'text/html; charset=utf-8',
        content: '<p>Caf&eacute; cr&egrave;me &#8217;s &mdash; na&#xEF;ve &#x2014; 5&nbsp;&euro; &amp;lt;</p>',
      },
    });
    expect(sent.status, sent.text).toBe(200);
    const [ticket] = (await ticketsOf(site.id)).filter((t) => t.subject === 'Entities');
    expect((await entriesOf(ticket!.id))[0]!.text_body).toBe('Café crème ’s — naïve — 5 € &lt;');
    await drained(site.id);
    const found = await api('/v2/search/tickets.json', { key: site.users.owner.apiKey, query: { search: 'café' } });
    expect(found.body.tickets.map((t: { id: number }) => t.id)).toContain(ticket!.id);
  });

  it('keeps HTML sanitized and decodes ISO-8859-1 and Shift_JIS bodies', async () => {
    const html = await send({
      from: 'carol@customer.test',
      to: address,
      subject: 'Styled',
      body: {
        contentType: 'text/html; charset=utf-8',
        content: '<p onclick="steal()">Hi <b>team</b></p><script>alert(1)</script><img src="javascript:alert(2)">',
      },
    });
    expect(html.status, html.text).toBe(200);
    const [styled] = (await ticketsOf(site.id)).filter((t) => t.subject === 'Styled');
    expect((await entriesOf(styled!.id))[0]!.html_body).toBe('<p>Hi <b>team</b></p><img src>');

    const latin = rawMail({
      from: 'dave@customer.test',
      to: address,
      subject: 'Latin',
      body: {
        contentType: 'text/plain; charset=iso-8859-1',
        transferEncoding: 'quoted-printable',
        content: 'Caf=E9 cr=E8me, s=FBr.',
      },
    });
    expect((await deliver(latin, { from: 'dave@customer.test', to: address })).status).toBe(200);
    const [cafe] = (await ticketsOf(site.id)).filter((t) => t.subject === 'Latin');
    expect((await entriesOf(cafe!.id))[0]!.text_body).toBe('Café crème, sûr.');

    // こんにちは in Shift_JIS, base64
    const japanese = rawMail({
      from: 'eiko@customer.test',
      to: address,
      subject: '=?UTF-8?B?44GT44KT44Gr44Gh44Gv?=',
      body: { contentType: 'text/plain; charset=Shift_JIS', transferEncoding: 'base64', content: 'grGC8YLJgr+CzQ==' },
    });
    expect((await deliver(japanese, { from: 'eiko@customer.test', to: address })).status).toBe(200);
    const [hello] = (await ticketsOf(site.id)).filter((t) => t.subject === 'こんにちは');
    expect((await entriesOf(hello!.id))[0]!.text_body).toBe('こんにちは');
  });
});

describe('aliases', () => {
  it('bring mail to the inbox, stored lowercase; an alias two inboxes share reaches neither; a bad one is a 400', async () => {
    const created = await api('/v2/inboxes.json', {
      method: 'POST',
      key: admin,
      body: {
        inbox: { name: 'Sales', aliases: ['Sales@Acme-Mail.test', 'deals@acme-mail.test', 'sales@acme-mail.test'] },
      },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.inbox.aliases).toEqual(['sales@acme-mail.test', 'deals@acme-mail.test']);
    const sales = created.body.inbox.id;
    expect(
      (await send({ from: 'kim@customer.test', to: 'DEALS@acme-mail.test', subject: 'A bulk order' })).status,
    ).toBe(200);
    const [ticket] = (await ticketsOf(site.id)).filter((t) => t.subject === 'A bulk order');
    expect(ticket).toMatchObject({ inbox_id: sales, original_recipient: 'deals@acme-mail.test' });

    // another inbox of the same helpdesk with the same alias: which would be a guess, so neither
    const twin = await api('/v2/inboxes.json', {
      method: 'POST',
      key: admin,
      body: { inbox: { name: 'Sales twin', aliases: ['sales@acme-mail.test'] } },
    });
    expect(twin.status, twin.text).toBe(201);
    const refused = await send({ from: 'kim@customer.test', to: 'sales@acme-mail.test', subject: 'Whose is it' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('no inbox receives mail at sales@acme-mail.test');
    expect((await ticketsOf(site.id)).filter((t) => t.subject === 'Whose is it')).toEqual([]);
    expect((await api(`/v2/inboxes/${twin.body.inbox.id}.json`, { method: 'DELETE', key: admin })).status).toBe(204);

    expectError(
      await api(`/v2/inboxes/${sales}.json`, {
        method: 'PATCH',
        key: admin,
        body: { inbox: { aliases: ['not an address'] } },
      }),
      400,
      'inbox.aliases[0]',
    );
    expectError(
      await api(`/v2/inboxes/${sales}.json`, {
        method: 'PATCH',
        key: admin,
        body: { inbox: { aliases: Array.from({ length: 21 }, (_, n) => `a${n}@acme-mail.test`) } },
      }),
      400,
      'inbox.aliases',
    );
    expect((await api(`/v2/inboxes/${sales}.json`, { key: admin })).body.inbox.aliases).toEqual([
      'sales@acme-mail.test',
      'deals@acme-mail.test',
    ]);
  });
});

describe("an upstream filter's spam score", () => {
  const statusOf = async (subject: string) => {
    const [ticket] = await rows<{ code: string; spam_score: number | null }>(
      'SELECT s.code, t.spam_score FROM tickets t JOIN ticket_statuses s ON s.id = t.status_id WHERE t.installation_id = $1 AND t.subject = $2',
      [site.id, subject],
    );
    return ticket;
  };

  it("makes the ticket spam from the inbox's threshold on, is kept below it, and is not read for a whitelisted sender", async () => {
    expect(
      (await send({ from: 'sam@scored.test', to: address, subject: 'Cheap pills', headers: ['X-Spam-Score: 7.5'] }))
        .status,
    ).toBe(200);
    expect(
      (
        await send({
          from: 'sam@scored.test',
          to: address,
          subject: 'Borderline',
          headers: ['X-Spam-Status: No, score=4.9 required=5.0 tests=NONE'],
        })
      ).status,
    ).toBe(200);
    expect(
      (await send({ from: 'sam@scored.test', to: address, subject: 'Rspamd says', headers: ['X-Rspamd-Score: 5'] }))
        .status,
    ).toBe(200);
    expect(
      (await send({ from: 'sam@scored.test', to: address, subject: 'Unscored', headers: ['X-Spam-Score: plenty'] }))
        .status,
    ).toBe(200);
    expect(await statusOf('Cheap pills')).toEqual({ code: 'spam', spam_score: 7.5 });
    expect(await statusOf('Borderline')).toEqual({ code: 'active', spam_score: 4.9 });
    expect(await statusOf('Rspamd says')).toEqual({ code: 'spam', spam_score: 5 });
    expect(await statusOf('Unscored')).toEqual({ code: 'active', spam_score: null });
    // the API shows it as the platform does
    const [cheap] = await rows<{ id: number }>('SELECT id FROM tickets WHERE installation_id = $1 AND subject = $2', [
      site.id,
      'Cheap pills',
    ]);
    expect((await api(`/v2/tickets/${cheap!.id}.json`, { key: admin })).body.ticket).toMatchObject({ spam_score: 7.5 });

    const listed = await api('/v2/spamlists.json', {
      method: 'POST',
      key: admin,
      body: { spamlist: { term: 'trusted.test', type: 'whitelist' } },
    });
    expect(listed.status, listed.text).toBe(201);
    expect(
      (await send({ from: 'tia@trusted.test', to: address, subject: 'Whitelisted', headers: ['X-Spam-Score: 50'] }))
        .status,
    ).toBe(200);
    expect(await statusOf('Whitelisted')).toEqual({ code: 'active', spam_score: null });

    const raised = await api(`/v2/inboxes/${inbox}.json`, {
      method: 'PATCH',
      key: admin,
      body: { inbox: { spamThreshold: 10 } },
    });
    expect(raised.status, raised.text).toBe(200);
    expect(
      (
        await send({
          from: 'sam@scored.test',
          to: address,
          subject: 'Under a higher bar',
          headers: ['X-Spam-Score: 7.5'],
        })
      ).status,
    ).toBe(200);
    expect(await statusOf('Under a higher bar')).toEqual({ code: 'active', spam_score: 7.5 });
    expect(
      (await api(`/v2/inboxes/${inbox}.json`, { method: 'PATCH', key: admin, body: { inbox: { spamThreshold: 5 } } }))
        .status,
    ).toBe(200);
  });
});

describe('attachments and the message as it came', () => {
  it('are files of the entry, an inline image shown where the body put it; the raw message downloadable for 30 days', async () => {
    const pdf = 'PDF-ish page content '.repeat(5_000); // about 100 KB
    const png = Uint8Array.from({ length: 3_000 }, (_, i) => (i * 7) % 256);
    const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64').replace(/.{76}/g, '$&\r\n');
    const body = [
      '--mixed',
      'Content-Type: multipart/related; boundary="rel"',
      '',
      '--rel',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<p>See the logo: <img src="cid:logo@customer.test"></p>',
      '--rel',
      'Content-Type: image/png; name="logo.png"',
      'Content-Transfer-Encoding: base64',
      'Content-ID: <logo@customer.test>',
      'Content-Disposition: inline; filename="logo.png"',
      '',
      b64(png),
      '--rel--',
      '--mixed',
      'Content-Type: application/pdf; name="invoice.pdf"',
      'Content-Disposition: attachment; filename="invoice.pdf"',
      'Content-Transfer-Encoding: base64',
      '',
      b64(pdf),
      '--mixed--',
      '',
    ].join('\r\n');
    const raw = rawMail({
      from: 'hank@customer.test',
      to: address,
      subject: 'With files',
      body: { contentType: 'multipart/mixed; boundary="mixed"', content: body },
    });
    const sent = await deliver(raw, { from: 'hank@customer.test', to: address });
    expect(sent.status, sent.text).toBe(200);
    const ticket = (await ticketsOf(site.id)).find((t) => t.subject === 'With files')!.id;
    const [entry] = await entriesOf(ticket);
    const attached = await rows<{ id: number; name: string; content_type: string; size: number; disposition: string }>(
      `SELECT f.id, f.name, f.content_type, f.size::int AS size, f.disposition FROM ticket_message_files tf JOIN files f ON f.id = tf.file_id
        WHERE tf.message_id = $1 ORDER BY f.id`,
      [entry!.id],
    );
    expect(attached.map((f) => [f.name, f.content_type, f.size, f.disposition])).toEqual([
      ['logo.png', 'image/png', png.length, 'attachment-inline'],
      ['invoice.pdf', 'application/pdf', pdf.length, 'attachment'],
    ]);
    expect(entry!.html_body).toBe(
      `<p>See the logo: <img src="/v2/tickets/${ticket}/files/${attached[0]!.id}/download"></p>`,
    );
    const invoice = await api(`/v2/tickets/${ticket}/files/${attached[1]!.id}/download`, { key: admin });
    expect(invoice.status).toBe(200);
    expect(invoice.text).toBe(pdf);
    const logo = await api(`/v2/tickets/${ticket}/files/${attached[0]!.id}/download`, { key: admin });
    expect([logo.status, logo.headers.get('content-type'), logo.headers.get('content-length')]).toEqual([
      200,
      'image/png',
      String(png.length),
    ]);

    // the message as it came, to those who see the ticket, until it is swept
    const original = await api(`/v2/tickets/${ticket}/messages/${entry!.id}/original.eml`, { key: admin });
    expect(original.status).toBe(200);
    expect(original.headers.get('content-type')).toBe('message/rfc822');
    expect(original.text).toBe(raw);
    expect(
      (await api(`/v2/tickets/${ticket}/messages/${entry!.id}/original.eml`, { key: other.users.admin.apiKey })).status,
    ).toBe(404);
    const [kept] = await rows<{ days: number }>(
      'SELECT round(extract(epoch FROM raw_expires_at - created_at) / 86400)::int AS days FROM inbound_mails WHERE thread_entry_id = $1',
      [entry!.id],
    );
    expect(kept).toEqual({ days: 30 });
    await rows("UPDATE inbound_mails SET raw_expires_at = now() - interval '1 second' WHERE thread_entry_id = $1", [
      entry!.id,
    ]);
    await runCron();
    expect((await api(`/v2/tickets/${ticket}/messages/${entry!.id}/original.eml`, { key: admin })).status).toBe(404);
    expect(await rows('SELECT raw_key FROM inbound_mails WHERE thread_entry_id = $1', [entry!.id])).toEqual([
      { raw_key: null },
    ]);
  });
});

describe('a reply', () => {
  let ticket: number;
  let firstId: string;

  beforeAll(async () => {
    firstId = newMessageId();
    expect(
      (
        await send({
          from: 'Frank <frank@customer.test>',
          to: address,
          subject: 'Order 42 missing',
          messageId: firstId,
        })
      ).status,
    ).toBe(200);
    ticket = (await ticketsOf(site.id)).find((t) => t.subject === 'Order 42 missing')!.id;
    // the team answers, so the ticket waits on the customer
    const answered = await api(`/v2/tickets/${ticket}/messages.json`, {
      method: 'POST',
      key: admin,
      body: { message: 'Looking into it' },
    });
    expect(answered.status, answered.text).toBe(201);
  });

  it("threads by In-Reply-To and References as the customer's reply, making a waiting ticket active again", async () => {
    expect((await api(`/v2/tickets/${ticket}.json`, { key: admin })).body.ticket.status.id).toBe(3);
    const replyId = newMessageId();
    const sent = await send({
      from: 'frank@customer.test',
      to: address,
      subject: 'Re: Order 42 missing',
      messageId: replyId,
      inReplyTo: firstId,
      body: 'Any news?',
    });
    expect(sent.status, sent.text).toBe(200);
    const entries = await entriesOf(ticket);
    expect(entries.at(-1)).toMatchObject({ thread_type: 'message', text_body: 'Any news?', email_message_id: replyId });
    expect(entries.at(-1)!.customer_id).not.toBeNull();
    expect((await api(`/v2/tickets/${ticket}.json`, { key: admin })).body.ticket.status.id).toBe(1);
    // References alone, naming an older message further back
    const third = await send({
      from: 'frank@customer.test',
      to: address,
      subject: 'Re: Re: Order 42',
      references: `<unknown@elsewhere.test> <${firstId}>`,
      body: 'Hello?',
    });
    expect(third.status).toBe(200);
    expect((await entriesOf(ticket)).at(-1)!.text_body).toBe('Hello?');
    expect((await ticketsOf(site.id)).filter((t) => t.subject.includes('Order 42'))).toHaveLength(1);
  });

  it("threads by the subject's signed token, and a forged or foreign token makes a new ticket", async () => {
    // the documented form: [#<id>-<the first 10 hex of HMAC-SHA256("ticket-mail:<id>") keyed with PM_TOKEN_KEY>]
    const subjectToken = `[#${ticket}-${createHmac('sha256', DEV_PM_TOKEN_KEY).update(`ticket-mail:${ticket}`).digest('hex').slice(0, 10)}]`;
    expect(
      (
        await send({
          from: 'frank@customer.test',
          to: address,
          subject: `Re: your ticket ${subjectToken}`,
          body: 'By token',
        })
      ).status,
    ).toBe(200);
    expect((await entriesOf(ticket)).at(-1)!.text_body).toBe('By token');
    const forged = subjectToken.replace(/-[0-9a-f]{10}\]/, '-0000000000]');
    expect(
      (await send({ from: 'frank@customer.test', to: address, subject: `Forged ${forged}`, body: 'Forged' })).status,
    ).toBe(200);
    expect((await ticketsOf(site.id)).find((t) => t.subject === `Forged ${forged}`)).toBeDefined();
  });

  it('shows without the history it quotes (Gmail HTML, a plain "On ... wrote:"), the whole message still downloadable', async () => {
    const gmail =
      '<div dir="ltr">Thanks, that worked.</div><br><div class="gmail_quote"><div class="gmail_attr">On Mon, Nov 23, 2026 Support wrote:</div>' +
      '<blockquote class="gmail_quote">Looking into it</blockquote></div>';
    const html = await send({
      from: 'frank@customer.test',
      to: address,
      subject: 'Re: Order 42 missing',
      inReplyTo: firstId,
      body: { contentType: 'text/html; charset=utf-8', content: gmail },
    });
    expect(html.status, html.text).toBe(200);
    const answered = (await entriesOf(ticket)).at(-1)!;
    expect(answered.text_body).toBe('Thanks, that worked.');
    const original = await api(`/v2/tickets/${ticket}/messages/${answered.id}/original.eml`, { key: admin });
    expect(original.text).toContain('Looking into it');

    const text = await send({
      from: 'frank@customer.test',
      to: address,
      subject: 'Re: Order 42 missing',
      inReplyTo: firstId,
      body: 'Great, thanks!\r\n\r\nOn Mon, 23 Nov 2026 at 10:00, Support <support@example.test> wrote:\r\n> Looking into it\r\n> Regards',
    });
    expect(text.status).toBe(200);
    expect((await entriesOf(ticket)).at(-1)!.text_body).toBe('Great, thanks!');
    // all quoted, nothing of its own: kept whole rather than empty
    const quotedOnly = await send({
      from: 'frank@customer.test',
      to: address,
      subject: 'Re: Order 42 missing',
      inReplyTo: firstId,
      body: '> Looking into it',
    });
    expect(quotedOnly.status).toBe(200);
    expect((await entriesOf(ticket)).at(-1)!.text_body).toBe('> Looking into it');
  });

  it('from someone other than the customer is a note saying who wrote it', async () => {
    const sent = await send({
      from: 'grace@partner.test',
      to: address,
      subject: 'Re: Order 42 missing',
      inReplyTo: firstId,
      body: 'I can help',
    });
    expect(sent.status, sent.text).toBe(200);
    const last = (await entriesOf(ticket)).at(-1)!;
    expect(last).toMatchObject({ thread_type: 'note', customer_id: null });
    expect(last.text_body).toBe('From grace@partner.test:\nI can help');
  });

  it("the attack of issue 31, item 8: a reply in the customer's name that the receiving server did not vouch for is a note marked unverified", async () => {
    const spoofs: Array<{ name: string; authentication: false | string; headers?: string[]; why: string }> = [
      { name: 'no results at all', authentication: false, why: 'the message carries no authentication results' },
      {
        name: "Email Routing's verdict fails; a forged pass below it",
        authentication:
          'ARC-Authentication-Results: i=1; mx.cloudflare.net; dkim=none; dmarc=fail header.from=customer.test; spf=softfail smtp.mailfrom=frank@customer.test',
        headers: ['Authentication-Results: mx.cloudflare.net; dmarc=pass header.from=customer.test'],
        why: 'neither DMARC, DKIM nor SPF passed for customer.test',
      },
      {
        name: 'a pass written by someone else',
        authentication: 'Authentication-Results: relay.attacker.test; dmarc=pass header.from=customer.test',
        why: "its authentication results are not mx.cloudflare.net's",
      },
      {
        name: "the attacker's own domain passing",
        authentication:
          'ARC-Authentication-Results: i=1; mx.cloudflare.net; dkim=pass header.d=attacker.test; spf=pass smtp.mailfrom=x@attacker.test; dmarc=none',
        why: 'neither DMARC, DKIM nor SPF passed for customer.test',
      },
    ];
    for (const spoof of spoofs) {
      const sent = await send({
        from: 'Frank <frank@customer.test>',
        to: address,
        subject: 'Re: Order 42 missing',
        inReplyTo: firstId,
        body: `Send the refund to my new account (${spoof.name})`,
        authentication: spoof.authentication,
        headers: spoof.headers,
      });
      expect(sent.status, sent.text).toBe(200);
      const last = (await entriesOf(ticket)).at(-1)!;
      expect(last, spoof.name).toMatchObject({ thread_type: 'note', customer_id: null });
      expect(last.text_body, spoof.name).toBe(
        `From frank@customer.test, not verified (${spoof.why}):\nSend the refund to my new account (${spoof.name})`,
      );
    }
    // the same reply vouched for by Email Routing (DKIM alone, aligned with a parent domain) is the customer's
    const genuine = await send({
      from: 'frank@customer.test',
      to: address,
      subject: 'Re: Order 42 missing',
      inReplyTo: firstId,
      body: 'Signed by my provider',
      authentication:
        'ARC-Authentication-Results: i=2; mx.cloudflare.net; dkim=pass header.d=customer.test; dmarc=none',
    });
    expect(genuine.status, genuine.text).toBe(200);
    expect((await entriesOf(ticket)).at(-1)).toMatchObject({
      thread_type: 'message',
      text_body: 'Signed by my provider',
    });
  });

  it("never threads into another installation's ticket", async () => {
    const theirs = await newInstallation('mail-theirs');
    const theirInbox = (await api('/v2/inboxes.json', { key: theirs.users.admin.apiKey })).body.inboxes[0].id;
    expect(
      (
        await api(`/v2/inboxes/${theirInbox}.json`, {
          method: 'PATCH',
          key: theirs.users.admin.apiKey,
          body: { inbox: { localPart: 'support' } },
        })
      ).status,
    ).toBe(200);
    const sent = await send({
      from: 'frank@customer.test',
      to: `support@${theirs.siteName}.mail.localhost`,
      subject: 'Re: Order 42 missing',
      inReplyTo: firstId,
      body: 'Wrong helpdesk',
    });
    expect(sent.status).toBe(200);
    const made = await ticketsOf(theirs.id);
    expect(made).toHaveLength(1);
    expect(made[0]!.subject).toBe('Re: Order 42 missing');
    expect((await entriesOf(ticket)).some((e) => e.text_body === 'Wrong helpdesk')).toBe(false);
  });
});

describe('refusals', () => {
  it('answer a message for an address no inbox has with a reason, and write nothing', async () => {
    const before = await rows('SELECT count(*)::int AS n FROM inbound_mails');
    for (const to of [
      `nobody@${site.siteName}.mail.localhost`,
      `support@no-such-site.mail.localhost`,
      'someone@elsewhere.test',
    ]) {
      const sent = await send({ from: 'ada@customer.test', to, subject: 'Lost?' });
      expect(sent.status).toBe(400);
      expect(sent.text).toContain(`no inbox receives mail at ${to}`);
    }
    expect(await rows('SELECT count(*)::int AS n FROM inbound_mails')).toEqual(before);
    expect((await ticketsOf(site.id)).filter((t) => t.subject === 'Lost?')).toEqual([]);
    expect(await ticketsOf(other.id)).toEqual([]);
  });

  it('refuse a message over the size limit, one with no sender and a blacklisted sender, recording why', async () => {
    const big = await send({
      from: 'ada@customer.test',
      to: address,
      subject: 'Too big',
      body: 'x'.repeat(TEST_MAIL_MAX_BYTES + 1),
    });
    expect(big.status).toBe(400);
    expect(big.text).toContain(`this inbox takes at most ${TEST_MAIL_MAX_BYTES}`);
    // 30 MB: past Email Routing's own 25 MiB, refused before any handler (the local harness keeps that limit)
    const huge = await send({
      from: 'ada@customer.test',
      to: address,
      subject: 'Thirty megabytes',
      body: 'y'.repeat(30 * 1024 * 1024),
    });
    expect(huge.status).toBe(400);
    expect(huge.text).toContain('25MiB');
    expect((await ticketsOf(site.id)).filter((t) => t.subject === 'Thirty megabytes')).toEqual([]);

    const anonymousId = newMessageId();
    const anonymous = rawMail({
      from: 'ada@customer.test',
      to: address,
      subject: 'Nobody',
      messageId: anonymousId,
    }).replace(/^From: .*$/m, 'From: undisclosed-recipients:;');
    const noSender = await deliver(anonymous, { from: 'ada@customer.test', to: address });
    expect(noSender.status).toBe(400);
    expect(noSender.text).toContain('names no sender');
    const unusable = await deliver(
      rawMail({ from: 'Someone <not-an-address>', to: address, subject: 'Nobody either' }),
      { from: 'bounce@customer.test', to: address },
    );
    expect(unusable.status, unusable.text).toBe(400);
    expect(unusable.text).toContain('names no sender');

    // 60 multiparts deep: past the 50 levels read (the local harness itself reads 256)
    let nested = 'Content-Type: text/plain\r\n\r\ndeep';
    for (let level = 59; level >= 0; level--)
      nested = `Content-Type: multipart/mixed; boundary="b${level}"\r\n\r\n--b${level}\r\n${nested}\r\n--b${level}--`;
    const deepRaw = rawMail({ from: 'ada@customer.test', to: address, subject: 'Deep' }).replace(
      /Content-Type: text\/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\nHello, I need help\./,
      nested,
    );
    const deep = await deliver(deepRaw, { from: 'ada@customer.test', to: address });
    expect(deep.status, deep.text).toBe(400);
    expect(deep.text).toContain('cannot be read as MIME');

    const listed = await api('/v2/spamlists.json', {
      method: 'POST',
      key: admin,
      body: { spamlist: { term: 'spammy.test', type: 'blacklist' } },
    });
    expect(listed.status, listed.text).toBe(201);
    const spam = await send({ from: 'offers@spammy.test', to: address, subject: 'Cheap watches' });
    expect(spam.status).toBe(400);
    expect(spam.text).toContain('blacklist');
    const ipListed = await api('/v2/spamlists.json', {
      method: 'POST',
      key: admin,
      body: { spamlist: { term: '203.0.113.7', type: 'blacklist' } },
    });
    expect(ipListed.status, ipListed.text).toBe(201);
    expect((await send({ from: 'someone@fine.test', to: address, subject: 'Via a listed relay' })).status).toBe(400);
    expect(
      await api(`/v2/spamlists/${ipListed.body.spamlist.id}.json`, { method: 'DELETE', key: admin }),
    ).toMatchObject({ status: 204 });

    const subjects = (await ticketsOf(site.id)).map((t) => t.subject);
    for (const subject of ['Too big', 'Nobody', 'Nobody either', 'Deep', 'Cheap watches', 'Via a listed relay'])
      expect(subjects).not.toContain(subject);
    const refused = (await outcomes(site.id)).filter((o) => o.outcome === 'refused').map((o) => o.reason);
    expect(refused).toEqual(
      expect.arrayContaining([
        expect.stringContaining('at most'),
        expect.stringContaining('no sender'),
        expect.stringContaining('MIME'),
        expect.stringContaining('blacklist'),
      ]),
    );
  });

  it('refuse a sender past 20 messages in 10 minutes (a mail loop), others still coming in', async () => {
    const loop = await newInstallation('mail-loop');
    const loopInbox = (await api('/v2/inboxes.json', { key: loop.users.admin.apiKey })).body.inboxes[0].id;
    expect(
      (
        await api(`/v2/inboxes/${loopInbox}.json`, {
          method: 'PATCH',
          key: loop.users.admin.apiKey,
          body: { inbox: { localPart: 'help' } },
        })
      ).status,
    ).toBe(200);
    const to = `help@${loop.siteName}.mail.localhost`;
    for (let i = 0; i < 20; i++)
      expect((await send({ from: 'robot@loop.test', to, subject: `Loop ${i}` })).status).toBe(200);
    const stopped = await send({ from: 'robot@loop.test', to, subject: 'Loop 20' });
    expect(stopped.status).toBe(400);
    expect(stopped.text).toContain('more than 20 messages from this sender');
    expect((await send({ from: 'human@loop.test', to, subject: 'Not a loop' })).status).toBe(200);
    expect(await ticketsOf(loop.id)).toHaveLength(21);
  });
});
