// Issue 31, item 1: a visitor who names themselves in the chat widget with the email of an
// existing customer is not linked to that customer on their word. The chat stands apart, the
// address is mailed a proof link, and only following it (a page, then its Confirm button) links
// the visitor to the customer. The public history never answers the customer's record.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { checkedFetch } from '../support/contract';
import { deliver, fromContact, historyPath, type StartedConversation } from '../support/conversation-messages';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { drained } from '../support/events';
import { eventually } from '../support/room';
import { TEST_PUBLIC_URL } from '../mail/limits';
import { sentTo } from '../mail/support';

let site: SeededInstallation;
let formToken: string;
let customerId: number;
const email = `ada.${Date.now().toString(36)}@customer.test`;

const contactRow = async (id: number) =>
  (
    await rows<{ customer_id: number | null; email_token_hash: string | null; email_verified_at: Date | null }>(
      'SELECT customer_id, email_token_hash, email_verified_at FROM contacts WHERE id = $1',
      [id],
    )
  )[0]!;

async function visitorChat(contact: { name: string; email?: string }): Promise<StartedConversation> {
  const response = await api('/v2/conversations.json', {
    method: 'POST',
    key: formToken,
    body: { conversation: { contact } },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.conversation;
}

const page = (path: string, method: 'GET' | 'POST' = 'GET') =>
  checkedFetch(`${inject('workerUrl')}${path}`, { method, redirect: 'manual' });

beforeAll(async () => {
  site = await newInstallation('visitor-proof');
  const admin = site.users.admin.apiKey;
  const inbox = (await api('/v2/inboxes.json', { key: admin })).body.inboxes[0].id;
  const form = await api('/v2/contactforms.json', {
    method: 'POST',
    key: admin,
    body: { contactform: { name: 'Chat', isLiveChatEnabled: true, inbox } },
  });
  expect(form.status, form.text).toBe(201);
  formToken = form.body.contactform.token;
  const customer = await api('/v2/customers.json', {
    method: 'POST',
    key: admin,
    body: {
      customer: {
        firstName: 'Ada',
        lastName: 'Lovelace',
        email,
        phone: '+44 20 7946 0000',
        notes: 'VIP, card ends 4242',
      },
    },
  });
  expect(customer.status, customer.text).toBe(201);
  customerId = customer.body.customer.id;
});

describe("a widget visitor giving an existing customer's email", () => {
  let chat: StartedConversation;
  let link: string;

  it('is not linked to the customer, and the public history answers nothing of the customer; the chat is not made their ticket', async () => {
    chat = await visitorChat({ name: 'Mallory', email: email.toUpperCase() });
    expect(await contactRow(chat.contactId)).toMatchObject({ customer_id: null, email_verified_at: null });
    await deliver(fromContact(chat, 'Hi, what is on my account?'));
    for (const includes of ['customers', 'users', 'customers,users,contacts'])
      expectError(await api(historyPath(chat.token), { query: { includes } }), 400, /includes/);
    const history = await api(historyPath(chat.token));
    expect(history.status, history.text).toBe(200);
    expect(history.text).not.toContain('4242');
    expect(history.text).not.toContain('+44');
    // the agents see the chat apart from the customer too
    const read = await api(`/v2/conversations/${chat.id}.json`, {
      key: site.users.agent.apiKey,
      query: { includes: 'contacts' },
    });
    expect(read.body.included.contacts[0].customer).toBeNull();
    // nor is the chat filed as the customer's ticket (which would show the agent "Ada")
    const ticketsBefore = await rows('SELECT id FROM tickets WHERE installation_id = $1', [site.id]);
    const made = expectError(
      await api(`/v2/conversations/${chat.id}/ticket.json`, { method: 'POST', key: site.users.agent.apiKey }),
      409,
    );
    expect(made.detail).toContain('has not confirmed');
    expect(await rows('SELECT id FROM tickets WHERE installation_id = $1', [site.id])).toEqual(ticketsBefore);
  });

  it("mails the address a proof link, from the form's inbox, carrying nothing the visitor wrote", async () => {
    const [mail, ...more] = await eventually(async () => {
      const sent = await sentTo(email);
      return sent.length ? sent : undefined;
    });
    expect(more).toEqual([]);
    expect(mail).toMatchObject({
      from: { email: `support@${site.siteName}.mail.localhost` },
      subject: 'Confirm your email address',
      headers: { 'Auto-Submitted': 'auto-generated' },
    });
    expect(mail!.html).not.toContain('Mallory');
    const found = new RegExp(`${TEST_PUBLIC_URL.replace(/\./g, '\\.')}(/v2/contacts/verify/hdv_[A-Za-z0-9]{40})`).exec(
      mail!.text ?? '',
    );
    expect(found, mail!.text).not.toBeNull();
    link = found![1]!;
    const [outbound] = await rows('SELECT kind, ticket_id, status FROM outbound_mails WHERE installation_id = $1', [
      site.id,
    ]);
    expect(outbound).toMatchObject({ kind: 'verification', ticket_id: null });
  });

  it('shows a page asking to confirm; opening it confirms nothing (a link checker follows links)', async () => {
    for (let i = 0; i < 2; i++) {
      const shown = await page(link);
      expect(shown.status).toBe(200);
      expect(shown.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await shown.text();
      expect(html.toLowerCase()).toContain(email);
      expect(html).toContain(`<form method="post" action="${link}">`);
      // what the holder of the link needs to tell whether the chat was theirs
      expect(html).toContain('its first message: “Hi, what is on my account?”');
    }
    expect(await contactRow(chat.contactId)).toMatchObject({ customer_id: null, email_verified_at: null });
  });

  it('links the visitor to the customer once confirmed; the link then works no more', async () => {
    const confirmed = await page(link, 'POST');
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain('Your email address is confirmed');
    const row = await contactRow(chat.contactId);
    expect(row).toMatchObject({ customer_id: customerId, email_token_hash: null });
    expect(row.email_verified_at).not.toBeNull();
    expect((await page(link, 'POST')).status).toBe(404);
    expect((await page(link)).status).toBe(404);
    const [event] = await rows<{ data: unknown }>(
      `SELECT data FROM events WHERE installation_id = $1 AND record_type = 'contacts' AND record_id = $2 AND kind = 'updated'`,
      [site.id, chat.contactId],
    );
    expect(event?.data).toEqual({ emailVerified: { before: false, after: true } });
  });

  it("once confirmed, the chat becomes the customer's ticket on demand", async () => {
    const made = await api(`/v2/conversations/${chat.id}/ticket.json`, {
      method: 'POST',
      key: site.users.agent.apiKey,
    });
    expect(made.status, made.text).toBeLessThan(300);
    const [ticket] = await rows<{ customer_id: number }>(
      'SELECT t.customer_id FROM tickets t JOIN conversations c ON c.ticket_id = t.id WHERE c.id = $1',
      [chat.id],
    );
    expect(ticket).toEqual({ customer_id: customerId });
  });

  it('mails each chat its own link, at most three an hour an address not followed; never an address no customer has; forged links open nothing', async () => {
    const later = [];
    for (let i = 0; i < 4; i++) later.push(await visitorChat({ name: `Mallory ${i}`, email }));
    const stranger = `nobody.${Date.now().toString(36)}@customer.test`;
    const unknown = await visitorChat({ name: 'Someone', email: stranger });
    // the links are written once each conversation is, by the drain
    await drained(site.id);
    const hashes = await Promise.all(later.map(async (c) => (await contactRow(c.contactId)).email_token_hash));
    expect(
      hashes.slice(0, 3).every((hash) => /^[0-9a-f]{64}$/.test(hash ?? '')),
      String(hashes),
    ).toBe(true);
    expect(new Set(hashes.slice(0, 3)).size).toBe(3);
    expect(hashes[3]).toBeNull();
    expect(await contactRow(unknown.contactId)).toMatchObject({ customer_id: null, email_token_hash: null });
    const proofs = async () => (await sentTo(email)).filter((mail) => mail.subject === 'Confirm your email address');
    await eventually(async () => ((await proofs()).length >= 4 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await proofs()).toHaveLength(4);
    expect(await sentTo(stranger)).toEqual([]);
    for (const forged of [
      `/v2/contacts/verify/hdv_${'A'.repeat(40)}`,
      '/v2/contacts/verify/hdv_short',
      `/v2/contacts/verify/${'x'.repeat(64)}`,
    ]) {
      expect((await page(forged)).status, forged).toBe(404);
      expect((await page(forged, 'POST')).status, forged).toBe(404);
    }
  });

  it("a teammate's new contact is linked at once, as a teammate names who it is", async () => {
    const started = await api('/v2/conversations.json', {
      method: 'POST',
      key: site.users.agent.apiKey,
      body: { conversation: { contact: { name: 'Ada', email } } },
    });
    expect(started.status, started.text).toBe(201);
    expect(await contactRow(started.body.conversation.contactId)).toMatchObject({
      customer_id: customerId,
      email_token_hash: null,
    });
  });
});
