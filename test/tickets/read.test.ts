// isRead, for the caller: marked with PATCH isRead, unread again when someone else adds to the
// thread (a customer, another teammate), never by the caller's own replies; per teammate.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';

let site: SeededInstallation;
let owner: string;
let agent: string;
let id: number;

const isRead = async (key: string) => (await api(`/v2/tickets/${id}.json`, { key })).body.ticket.isRead;
const mark = (key: string, value: unknown) =>
  api(`/v2/tickets/${id}.json`, { method: 'PATCH', key, body: { ticket: { isRead: value } } });

beforeAll(async () => {
  site = await newInstallation('ticket-read');
  owner = site.users.owner.apiKey;
  agent = site.users.agent.apiKey;
  const inbox = (await api('/v2/inboxes.json', { key: owner })).body.inboxes[0].id;
  id = (
    await api('/v2/tickets.json', {
      method: 'POST',
      key: owner,
      body: { subject: 'Read me', inbox, customer: { email: 'read@tickets.test' }, message: 'hello' },
    })
  ).body.ticket.id;
});

describe('isRead', () => {
  it('is false until marked, per teammate', async () => {
    expect(await isRead(agent)).toBe(false);
    const marked = await mark(agent, true);
    expect(marked.status, marked.text).toBe(200);
    expect(marked.body.ticket.isRead).toBe(true);
    expect(await isRead(agent)).toBe(true);
    expect(await isRead(owner)).toBe(false);
    expect(
      (await api('/v2/tickets.json', { key: agent, query: { filter: { isRead: true } } })).body.tickets.map(
        (t: any) => t.id,
      ),
    ).toEqual([id]);
  });

  it("stays read after the caller's own reply, not after another teammate's", async () => {
    expect(
      (await api(`/v2/tickets/${id}/messages.json`, { method: 'POST', key: agent, body: { message: 'mine' } })).status,
    ).toBe(201);
    expect(await isRead(agent)).toBe(true);
    expect(
      (
        await api(`/v2/tickets/${id}/messages.json`, {
          method: 'POST',
          key: owner,
          body: { message: 'theirs', threadType: 'note' },
        })
      ).status,
    ).toBe(201);
    expect(await isRead(agent)).toBe(false);
  });

  it('goes unread when the customer writes again, and can be marked unread', async () => {
    expect((await mark(agent, true)).body.ticket.isRead).toBe(true);
    // the customer's entry a minute ahead, so the mark below comes before it even with the database far away
    await rows(
      `INSERT INTO ticket_messages (installation_id, ticket_id, thread_type, html_body, text_body, customer_id, created_at)
      SELECT installation_id, id, 'message', 'again', 'again', customer_id, now() + interval '1 minute' FROM tickets WHERE id = $1`,
      [id],
    );
    expect(await isRead(agent)).toBe(false);
    expect((await mark(agent, true)).body.ticket.isRead).toBe(false);
    await rows(`UPDATE ticket_reads SET read_at = now() + interval '2 minutes' WHERE ticket_id = $1`, [id]);
    expect(await isRead(agent)).toBe(true);
    expect((await mark(agent, false)).body.ticket.isRead).toBe(false);
    expect(
      await rows('SELECT count(*)::int AS n FROM ticket_reads WHERE ticket_id = $1 AND user_id = $2', [
        id,
        site.users.agent.id,
      ]),
    ).toEqual([{ n: 0 }]);
  });

  it('refuses a value that is not a boolean, and is ignored in a bulk update', async () => {
    expectError(await mark(agent, 'yes'), 400, 'ticket.isRead');
    const bulk = await api('/v2/tickets/update.json', {
      method: 'PATCH',
      key: owner,
      query: { filter: { id } },
      body: { ticket: { isRead: true, subject: 'Read me too' } },
    });
    expect(bulk.status, bulk.text).toBe(200);
    expect(await isRead(owner)).toBe(false);
  });
});
