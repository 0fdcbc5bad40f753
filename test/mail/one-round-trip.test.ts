// One inbound mail message is two exchanges with the database, wherever it is: the message is
// read first (no database), one statement finds its inbox with every fact its handling needs, one
// batch writes the outcome (docs/connection-strategy.md, "Writes in one round trip"). Each count
// is the handler's own (`dbRoundTrips` on its log line).
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { drained } from '../support/events';
import { awaitLogLines } from '../support/logs';
import { newMessageId, rawMail, deliver, send, type RawMail } from './support';

let site: SeededInstallation;
let admin: string;
let address: string;

beforeAll(async () => {
  site = await newInstallation('mail-trips');
  admin = site.users.admin.apiKey;
  const inbox = (await api('/v2/inboxes.json', { key: admin })).body.inboxes[0].id;
  expect(
    (await api(`/v2/inboxes/${inbox}.json`, { method: 'PATCH', key: admin, body: { inbox: { localPart: 'trips' } } }))
      .status,
  ).toBe(200);
  address = `trips@${site.siteName}.mail.localhost`;
});

/** Sends a message and answers the handler's log line for it (taken or refused) with what it answered. */
async function counted(mail: Omit<RawMail, 'messageId'>, kind: 'taken' | 'refused' = 'taken') {
  await drained(site.id);
  const messageId = newMessageId();
  const answer = await send({ ...mail, messageId });
  const [line] = await awaitLogLines({ message: `mail: ${kind}`, messageId });
  return { answer, line: line!, messageId };
}

const image = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex').toString('base64');

describe('one inbound message in two exchanges', () => {
  it('a new ticket with an attachment and an inline image, then a threaded reply and the same message again', async () => {
    const boundary = 'b1';
    const created = await counted({
      from: 'Nell Park <nell@trips-customer.test>',
      to: address,
      subject: 'Broken lamp',
      body: {
        contentType: `multipart/related; boundary="${boundary}"`,
        content: [
          `--${boundary}`,
          'Content-Type: text/html; charset=utf-8',
          '',
          '<p>See <img src="cid:photo1"> and the receipt.</p>',
          `--${boundary}`,
          'Content-Type: image/png',
          'Content-Transfer-Encoding: base64',
          'Content-ID: <photo1>',
          'Content-Disposition: inline; filename="lamp.png"',
          '',
          image,
          `--${boundary}`,
          'Content-Type: text/plain; name="receipt.txt"',
          'Content-Disposition: attachment; filename="receipt.txt"',
          '',
          'Paid 40 EUR',
          `--${boundary}--`,
        ].join('\r\n'),
      },
    });
    expect(created.answer.status, created.answer.text).toBe(200);
    expect(created.line).toMatchObject({ outcome: 'ticket', dbRoundTrips: 2 });
    const ticketId = created.line.ticketId as number;
    const [entry] = await rows<{ id: number; html_body: string; email_message_id: string }>(
      'SELECT id, html_body, email_message_id FROM ticket_messages WHERE ticket_id = $1',
      [ticketId],
    );
    expect(entry!.email_message_id).toBe(created.messageId);
    const files = await rows<{ id: number; name: string; disposition: string; confirmed: boolean }>(
      `SELECT f.id, f.name, f.disposition, f.confirmed_at IS NOT NULL AS confirmed FROM ticket_message_files mf JOIN files f ON f.id = mf.file_id WHERE mf.message_id = $1 ORDER BY f.id`,
      [entry!.id],
    );
    expect(files.map((f) => [f.name, f.disposition, f.confirmed])).toEqual([
      ['lamp.png', 'attachment-inline', true],
      ['receipt.txt', 'attachment', true],
    ]);
    expect(entry!.html_body).toContain(`/v2/tickets/${ticketId}/files/${files[0]!.id}/download`);
    expect(entry!.html_body).not.toContain('mail.invalid');
    // the customer made, the message recorded with its outcome
    const [ticket] = await rows<{ email: string; original_recipient: string }>(
      'SELECT c.email, t.original_recipient FROM tickets t JOIN customers c ON c.id = t.customer_id WHERE t.id = $1',
      [ticketId],
    );
    expect(ticket).toEqual({ email: 'nell@trips-customer.test', original_recipient: address });
    const download = await api(`/v2/tickets/${ticketId}/files/${files[1]!.id}/download`, { key: admin });
    expect(download.status).toBe(200);
    expect(download.text).toMatch(/^Paid 40 EUR\r?\n?$/);

    const reply = await counted({
      from: 'nell@trips-customer.test',
      to: address,
      subject: 'Re: Broken lamp',
      inReplyTo: created.messageId,
      body: 'Any news?',
    });
    expect(reply.line).toMatchObject({ outcome: 'reply', ticketId, dbRoundTrips: 2 });
    expect(
      await rows(
        'SELECT thread_type, customer_id IS NOT NULL AS by_customer FROM ticket_messages WHERE ticket_id = $1 ORDER BY id',
        [ticketId],
      ),
    ).toEqual([
      { thread_type: 'message', by_customer: true },
      { thread_type: 'message', by_customer: true },
    ]);

    await drained(site.id);
    const again = await deliver(
      rawMail({
        from: 'nell@trips-customer.test',
        to: address,
        subject: 'Re: Broken lamp',
        messageId: reply.messageId,
        body: 'Any news?',
      }),
      { from: 'nell@trips-customer.test', to: address },
    );
    expect(again.status).toBe(200);
    const [duplicate] = await awaitLogLines({
      message: 'mail: taken',
      messageId: reply.messageId,
      outcome: 'duplicate',
    });
    expect(duplicate).toMatchObject({ ticketId, dbRoundTrips: 2 });
    expect(await rows('SELECT id FROM ticket_messages WHERE ticket_id = $1', [ticketId])).toHaveLength(2);
  });

  it('a refusal after the read (no sender) is two exchanges and writes only its record; an address no inbox has, one', async () => {
    const refused = await counted({ from: 'nobody', to: address, subject: 'No sender', headers: [] }, 'refused');
    expect(refused.answer.status).toBe(400);
    expect(refused.line).toMatchObject({ dbRoundTrips: 2 });
    expect(
      await rows("SELECT outcome FROM inbound_mails WHERE installation_id = $1 AND subject = 'No sender'", [site.id]),
    ).toEqual([{ outcome: 'refused' }]);

    const nowhere = `nobody-${Date.now()}@${site.siteName}.mail.localhost`;
    expect((await send({ from: 'ann@trips-customer.test', to: nowhere, subject: 'Lost' })).status).toBe(400);
    const [line] = await awaitLogLines({ message: 'mail: refused, no inbox may receive at the address', to: nowhere });
    expect(line).toMatchObject({ dbRoundTrips: 1 });
  });
});
