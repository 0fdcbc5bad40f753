// A conversation becomes a ticket on demand (POST /v2/conversations/{id}/ticket.json) or when it
// closes with no answer: the transcript is the thread, in order with its times and authors, and
// the conversation's ticket_id names the ticket; once only.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { drained } from '../support/events';

let site: SeededInstallation;
let agent: string;

async function chat(contact: Record<string, unknown>, messages: [author: string, text: string, minutesAgo: number][]) {
  const started = await api('/v2/conversations.json', {
    method: 'POST',
    key: agent,
    body: { conversation: { contact, subject: null } },
  });
  expect(started.status, started.text).toBe(201);
  const id = started.body.conversation.id;
  for (const [author, text, minutesAgo] of messages) {
    await rows(
      `INSERT INTO conversation_messages (installation_id, conversation_id, author, user_id, message, client_id, sent_at)
       VALUES ($1, $2, $3, $4, $5, md5(random()::text), now() - make_interval(mins => $6))`,
      [site.id, id, author, author === 'agent' ? site.users.agent.id : null, text, minutesAgo],
    );
  }
  return id as number;
}

beforeAll(async () => {
  site = await newInstallation('chat-to-ticket');
  agent = site.users.agent.apiKey;
});

describe('on demand', () => {
  it('makes the transcript the thread, customer and teammate as they wrote, and links the conversation', async () => {
    const id = await chat({ name: 'Vera Visitor', email: 'vera@chat.test' }, [
      ['contact', 'Hello, my order is late', 10],
      ['agent', 'Let me check', 8],
      ['system', 'Visitor left', 5],
    ]);
    const made = await api(`/v2/conversations/${id}/ticket.json`, { method: 'POST', key: agent });
    expect(made.status, made.text).toBe(201);
    const ticket = made.body.ticket;
    expect(ticket.subject).toBe('Chat with Vera Visitor');
    const thread = (await api(`/v2/tickets/${ticket.id}/messages.json`, { key: agent })).body.messages;
    expect(
      thread.map((m: any) => [m.threadType, m.textBody, m.customer === null ? m.createdBy?.id : 'customer']),
    ).toEqual([
      ['message', 'Hello, my order is late', 'customer'],
      ['message', 'Let me check', site.users.agent.id],
      // the system wrote it: no teammate
      ['note', 'Visitor left', undefined],
    ]);
    expect(Date.parse(thread[0].createdAt)).toBeLessThan(Date.parse(thread[1].createdAt));
    expect(Date.now() - Date.parse(thread[0].createdAt)).toBeGreaterThan(9 * 60_000);
    const customer = (await api(`/v2/customers/${ticket.customer.id}.json`, { key: agent })).body.customer;
    expect(customer.email).toBe('vera@chat.test');
    expect((await api(`/v2/conversations/${id}.json`, { key: agent })).body.conversation.ticket_id).toBe(ticket.id);
    expect(
      (await api(`/v2/search/tickets.json?search=order%20late`, { key: agent })).body.tickets.map((t: any) => t.id),
    ).toEqual([ticket.id]);

    expectError(await api(`/v2/conversations/${id}/ticket.json`, { method: 'POST', key: agent }), 409, 'id');
    expect(await rows('SELECT count(*)::int AS n FROM tickets WHERE installation_id = $1', [site.id])).toEqual([
      { n: 1 },
    ]);
  });

  it("refuses a contact with no email, another installation's conversation and collaborators, writing nothing", async () => {
    const anonymous = await chat({ name: 'Nobody' }, [['contact', 'hi', 1]]);
    expectError(await api(`/v2/conversations/${anonymous}/ticket.json`, { method: 'POST', key: agent }), 409, 'id');
    const stranger = await newInstallation('chat-to-ticket-other');
    expectError(
      await api(`/v2/conversations/${anonymous}/ticket.json`, { method: 'POST', key: stranger.users.owner.apiKey }),
      404,
    );
    expectError(
      await api(`/v2/conversations/${anonymous}/ticket.json`, { method: 'POST', key: site.users.collaborator.apiKey }),
      403,
    );
    expect(await rows('SELECT ticket_id FROM conversations WHERE id = $1', [anonymous])).toEqual([{ ticket_id: null }]);
  });
});

describe('when it closes unanswered', () => {
  it('becomes a ticket once, and an answered one does not', async () => {
    const unanswered = await chat({ name: 'Wendy', email: 'wendy@chat.test' }, [['contact', 'Anyone there?', 3]]);
    const answered = await chat({ name: 'Xavier', email: 'xavier@chat.test' }, [
      ['contact', 'Hi', 3],
      ['agent', 'Hello!', 2],
    ]);
    for (const id of [unanswered, answered]) {
      expect(
        (
          await api(`/v2/conversations/${id}.json`, {
            method: 'PATCH',
            key: agent,
            body: { conversation: { status: 'closed' } },
          })
        ).status,
      ).toBe(200);
    }
    await drained(site.id);
    const [linked] = await rows<{ ticket_id: number }>('SELECT ticket_id FROM conversations WHERE id = $1', [
      unanswered,
    ]);
    expect(linked!.ticket_id).toEqual(expect.any(Number));
    const thread = (await api(`/v2/tickets/${linked!.ticket_id}/messages.json`, { key: agent })).body.messages;
    expect(thread.map((m: any) => m.textBody)).toEqual(['Anyone there?']);
    expect(await rows('SELECT ticket_id FROM conversations WHERE id = $1', [answered])).toEqual([{ ticket_id: null }]);
    // closing again (reopened and closed) makes no second ticket
    await api(`/v2/conversations/${unanswered}.json`, {
      method: 'PATCH',
      key: agent,
      body: { conversation: { status: 'open' } },
    });
    await api(`/v2/conversations/${unanswered}.json`, {
      method: 'PATCH',
      key: agent,
      body: { conversation: { status: 'closed' } },
    });
    await drained(site.id);
    expect(
      await rows(
        `SELECT count(*)::int AS n FROM tickets t JOIN customers c ON c.id = t.customer_id WHERE c.email = 'wendy@chat.test'`,
      ),
    ).toEqual([{ n: 1 }]);
  });
});
