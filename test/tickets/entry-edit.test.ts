// A thread entry edited (PUT and PATCH /v2/messages/{id}.json, as the platform's client sends it):
// the body sanitized, the old body kept as a revision, a draft sent (moving the ticket as a
// reply would), a customer's words kept; an entry deleted (soft), the preview following.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { drained } from '../support/events';
import { SDK_HEADERS, SDK_INCLUDED } from '../support/sdk';

let site: SeededInstallation;
let agent: string;
let inbox: number;
let customer: number;

beforeAll(async () => {
  site = await newInstallation('entry-edits');
  agent = site.users.agent.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: agent })).body.inboxes[0].id;
  customer = (await api('/v2/customers.json', { method: 'POST', key: agent, body: { email: 'edit@tickets.test' } }))
    .body.customer.id;
});

const newTicket = async () =>
  (
    await api('/v2/tickets.json', {
      method: 'POST',
      key: agent,
      body: { subject: 'Edits', inbox, customer, message: 'customer words' },
    })
  ).body.ticket.id as number;
const reply = async (id: number, body: Record<string, unknown>) =>
  (await api(`/v2/tickets/${id}/messages.json`, { method: 'POST', key: agent, body: { message: 'x', ...body } })).body
    .message;
const ticket = async (id: number) => (await api(`/v2/tickets/${id}.json`, { key: agent })).body.ticket;

describe('editing an entry', () => {
  it('PUT as the SDK sends a Message: the body sanitized, the old one kept as a revision, the history says so', async () => {
    const id = await newTicket();
    const entry = await reply(id, { message: '<p>Frist answer</p>' });
    const read = (await api(`/v2/messages/${entry.id}.json`, { key: agent, headers: SDK_HEADERS })).body;
    const sent = {
      message: {
        ...read.message,
        message: '<p>First answer<script>alert(1)</script></p>',
        status: null,
        contact: null,
        assigningUser: null,
        delayed: false,
      },
      included: SDK_INCLUDED,
    };
    const put = await api(`/v2/messages/${entry.id}.json`, {
      method: 'PUT',
      key: agent,
      headers: SDK_HEADERS,
      body: sent,
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.message).toMatchObject({
      message: '<p>First answer</p>',
      htmlBody: '<p>First answer</p>',
      textBody: 'First answer',
      updatedBy: { id: site.users.agent.id, type: 'users' },
    });
    expect((await ticket(id)).previewText).toBe('First answer');
    const withRevisions = await api(`/v2/messages/${entry.id}.json`, { key: agent, query: { includes: 'revisions' } });
    expect(withRevisions.body.included.messagerevisions).toEqual([
      expect.objectContaining({
        message: '<p>Frist answer</p>',
        textBody: 'Frist answer',
        editMethod: 'html',
        createdBy: { id: site.users.agent.id, type: 'users' },
      }),
    ]);
    // the same body again keeps no second revision; markdown is rendered
    await api(`/v2/messages/${entry.id}.json`, { method: 'PUT', key: agent, body: sent });
    const md = await api(`/v2/messages/${entry.id}.json`, {
      method: 'PATCH',
      key: agent,
      body: { message: '**Final**', editMethod: 'markdown' },
    });
    expect(md.body.message).toMatchObject({ message: '<p><strong>Final</strong></p>', editMethod: 'markdown' });
    const [count] = await rows<{ n: number }>(
      'SELECT count(*)::int AS n FROM ticket_message_revisions WHERE message_id = $1',
      [entry.id],
    );
    expect(count!.n).toBe(2);
    await drained(site.id);
    const history = await api(`/v2/tickets/${id}/activities.json`, {
      key: agent,
      query: { filter: { eventType: 'thread.edited' } },
    });
    expect(history.body.ticketactivities).toHaveLength(2);
    expect(history.body.ticketactivities[0]).toMatchObject({ message: { id: entry.id, type: 'messages' } });
  });

  it('sending a draft makes it the reply it was kept back as: counted, previewed, the ticket moved to waiting', async () => {
    const id = await newTicket();
    const draft = await reply(id, { message: 'not yet', isDraft: true });
    expect(await ticket(id)).toMatchObject({ status: { id: 1 }, messageCount: 1, previewText: 'customer words' });
    const sent = await api(`/v2/messages/${draft.id}.json`, { method: 'PATCH', key: agent, body: { isDraft: false } });
    expect(sent.status, sent.text).toBe(200);
    expect(await ticket(id)).toMatchObject({ status: { id: 3 }, messageCount: 2, previewText: 'not yet' });
    await drained(site.id);
    const history = (await api(`/v2/tickets/${id}/activities.json`, { key: agent })).body.ticketactivities.map(
      (a: any) => a.eventType,
    );
    expect(history).toEqual(['ticket.created', 'ticket.agent.reply', 'ticket.status']);
    expectError(
      await api(`/v2/messages/${draft.id}.json`, { method: 'PATCH', key: agent, body: { isDraft: true } }),
      400,
      'message.isDraft',
    );
  });

  it("keeps a customer's words, refuses bad bodies and other callers; nothing changes", async () => {
    const id = await newTicket();
    const [first] = await rows<{ id: number; html_body: string }>(
      'SELECT id, html_body FROM ticket_messages WHERE ticket_id = $1',
      [id],
    );
    const edit = (body: unknown, key = agent, entry = first!.id) =>
      api(`/v2/messages/${entry}.json`, { method: 'PATCH', key, body });
    const kept = await edit({ message: 'rewritten' });
    expectError(kept, 409, 'message.message');
    expect((await edit({ isPinned: true })).body.message.isPinned).toBe(true);
    expectError(await edit({ message: '' }), 400, 'message.message');
    expectError(await edit({ editMethod: 'rtf' }), 400, 'message.editMethod');
    expectError(await edit({ cc: ['not an address'] }), 400, /message.cc/);
    expectError(
      await edit({ threadType: 'note', ticket: 5, colour: 'red', editMethod: 'rtf' }),
      400,
      'message.editMethod',
    );
    expectError(await edit({ isPinned: false }, site.users.collaborator.apiKey), 403);
    const other = await newInstallation('entry-edits-other');
    expectError(await edit({ isPinned: false }, other.users.owner.apiKey), 404, 'id');
    expectError(await edit({ isPinned: false }, agent, 2_000_000_000), 404, 'id');
    const [after] = await rows<{ html_body: string; is_pinned: boolean }>(
      'SELECT html_body, is_pinned FROM ticket_messages WHERE id = $1',
      [first!.id],
    );
    expect(after).toEqual({ html_body: first!.html_body, is_pinned: true });
  });
});

describe('deleting an entry', () => {
  it('is soft: the entry leaves the thread, the count and the preview; the history says so', async () => {
    const id = await newTicket();
    const entry = await reply(id, { message: 'oops, wrong ticket' });
    expect((await api(`/v2/messages/${entry.id}.json`, { method: 'DELETE', key: agent })).status).toBe(204);
    expectError(await api(`/v2/messages/${entry.id}.json`, { key: agent }), 404, 'id');
    expect(await ticket(id)).toMatchObject({ messageCount: 1, previewText: 'customer words' });
    expect((await api(`/v2/tickets/${id}/messages.json`, { key: agent })).body.messages).toHaveLength(1);
    await drained(site.id);
    const history = (await api(`/v2/tickets/${id}/activities.json`, { key: agent })).body.ticketactivities.map(
      (a: any) => a.eventType,
    );
    expect(history).toEqual(['ticket.created', 'ticket.agent.reply', 'ticket.status', 'thread.deleted']);
    expectError(await api(`/v2/messages/${entry.id}.json`, { method: 'DELETE', key: agent }), 404, 'id');
    expectError(
      await api(`/v2/messages/${entry.id}.json`, { method: 'DELETE', key: site.users.collaborator.apiKey }),
      403,
    );
  });
});
