// A ticket's history: every change (status, priority, assignment, inbox, tags, followers, each
// reply and note, edits, delete) becomes activities with actor, time and before/after, written
// from the write events by the queue's drain, read per ticket in pages, with
// includes=ticketactivities, and as /v2/ticketactivities.json.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { drained } from '../support/events';

let site: SeededInstallation;
let owner: string;
let agent: string;
let inbox: number;
let otherInbox: number;
let customer: number;
let tag: number;
let priority: number;

beforeAll(async () => {
  site = await newInstallation('ticket-history');
  owner = site.users.owner.apiKey;
  agent = site.users.agent.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: owner })).body.inboxes[0].id;
  otherInbox = (
    await api('/v2/inboxes.json', {
      method: 'POST',
      key: owner,
      body: {
        name: 'Billing',
        email: 'billing@history.test',
        users: [{ id: site.users.agent.id, meta: { access: 'full' } }],
      },
    })
  ).body.inbox.id;
  customer = (await api('/v2/customers.json', { method: 'POST', key: agent, body: { email: 'history@tickets.test' } }))
    .body.customer.id;
  priority = (await api('/v2/ticketpriorities.json', { key: owner })).body.ticketpriorities[0].id;
  tag = (await api('/v2/tags.json', { method: 'POST', key: owner, body: { name: 'history', color: '#123456' } })).body
    .tag.id;
});

const activities = async (id: number, query: Record<string, unknown> = {}, key = agent) => {
  await drained(site.id);
  return api(`/v2/tickets/${id}/activities.json`, { key, query: { pageSize: 100, ...query } });
};

describe('a ticket life as its history', () => {
  let id: number;

  it('records creation, each property change, tags, followers, replies and notes, in order, with who and when', async () => {
    id = (
      await api('/v2/tickets.json', {
        method: 'POST',
        key: agent,
        body: { subject: 'History', inbox, customer, message: 'Help' },
      })
    ).body.ticket.id;
    const patch = (body: unknown) =>
      api(`/v2/tickets/${id}.json`, { method: 'PATCH', key: agent, body: { ticket: body } });
    const first = await patch({
      priority,
      agent: site.users.agent.id,
      tags: [{ id: tag }],
      followers: [{ id: site.users.admin.id }],
    });
    expect(first.status, first.text).toBe(200);
    expect(
      (
        await api(`/v2/tickets/${id}/messages.json`, {
          method: 'POST',
          key: agent,
          body: { message: 'Looking', threadType: 'message' },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api(`/v2/tickets/${id}/messages.json`, {
          method: 'POST',
          key: agent,
          body: { message: 'psst', threadType: 'note' },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api(`/v2/tickets/${id}/messages.json`, {
          method: 'POST',
          key: agent,
          body: { message: 'later', isDraft: true },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await patch({
          inbox: otherInbox,
          agent: null,
          cc: ['x@history.test'],
          tags: [{ id: tag, meta: { delete: true } }],
        })
      ).status,
    ).toBe(200);

    const page = await activities(id);
    expect(page.status, page.text).toBe(200);
    const lines = page.body.ticketactivities.map((a: any) => a.eventType);
    expect(lines).toEqual([
      'ticket.created',
      // one change of several properties: one line each, in the event's (jsonb's) key order
      'ticket.assigned',
      'ticket.priority',
      'ticket.tag.added',
      'ticket.follower.added',
      'ticket.agent.reply',
      'ticket.status',
      'ticket.note',
      'ticket.unassigned',
      'ticket.moved',
      'ticket.updated',
      'ticket.tag.removed',
    ]);
    const by = (type: string) => page.body.ticketactivities.find((a: any) => a.eventType === type);
    expect(by('ticket.created')).toMatchObject({
      ticket: { id, type: 'tickets' },
      inbox: { id: inbox, type: 'inboxes' },
      createdBy: { id: site.users.agent.id, type: 'users' },
      actorSystem: null,
    });
    expect(by('ticket.assigned')).toMatchObject({
      targetAgent: { id: site.users.agent.id, type: 'users' },
      changes: { agent: { before: null, after: { id: site.users.agent.id, type: 'users' } } },
    });
    expect(by('ticket.status')).toMatchObject({
      status: { id: 3, type: 'ticketstatuses' },
      changes: { status: { before: { id: 1 }, after: { id: 3 } } },
    });
    expect(by('ticket.moved')).toMatchObject({ inbox: { id: otherInbox }, oldInbox: { id: inbox } });
    expect(by('ticket.unassigned').targetAgent).toEqual({ id: site.users.agent.id, type: 'users' });
    expect(by('ticket.updated').changes).toEqual({ cc: { before: [], after: ['x@history.test'] } });
    expect(by('ticket.tag.added').changes).toEqual({ tag: { id: tag, type: 'tags' } });
    expect(by('ticket.agent.reply').message).toEqual({ id: expect.any(Number), type: 'messages' });
    expect(Date.parse(by('ticket.created').createdAt)).toBeLessThanOrEqual(Date.parse(by('ticket.note').createdAt));
  });

  it('is included with the ticket as the platform names it, and filtered and paged like any list', async () => {
    const one = await api(`/v2/tickets/${id}.json`, { key: agent, query: { includes: 'ticketactivities' } });
    expect(one.status, one.text).toBe(200);
    expect(one.body.ticket.activities).toHaveLength(12);
    expect(one.body.included.ticketactivities[0]).toMatchObject({
      eventType: 'ticket.created',
      type: 'ticketactivities',
    });
    const page = await activities(id, { pageSize: 5, page: 2 });
    expect(page.body.meta.page).toMatchObject({ count: 12, pageSize: 5, pages: 3, pageOffset: 5 });
    expect(page.body.pagination).toMatchObject({ records: 12, page: 2, hasMorePages: true });
    const statuses = await activities(id, { filter: { eventType: { $in: ['ticket.status', 'ticket.moved'] } } });
    expect(statuses.body.ticketactivities.map((a: any) => a.eventType)).toEqual(['ticket.status', 'ticket.moved']);
    const all = await api('/v2/ticketactivities.json', {
      key: agent,
      query: { filter: { ticket: id }, pageSize: 100 },
    });
    expect(all.body.ticketactivities).toHaveLength(12);
  });

  it('a delivery of the same events again makes no second line', async () => {
    await rows(
      `DELETE FROM event_deliveries WHERE subscriber = 'tickets.activities' AND event_id IN (SELECT id FROM events WHERE installation_id = $1)`,
      [site.id],
    );
    await rows('UPDATE events SET dispatched_at = NULL WHERE installation_id = $1', [site.id]);
    await api('/v2/tickets/' + id + '/messages.json', {
      method: 'POST',
      key: agent,
      body: { message: 'again', threadType: 'note' },
    });
    const page = await activities(id);
    expect(page.body.ticketactivities).toHaveLength(13);
    const [count] = await rows<{ n: number }>('SELECT count(*)::int AS n FROM ticket_activities WHERE ticket_id = $1', [
      id,
    ]);
    expect(count!.n).toBe(13);
  });

  it('a deleted ticket has a last line, and its history reads as 404 like the ticket; bad queries are 400', async () => {
    expectError(await activities(id, { filter: { nope: 1 } }), 400, 'filter.nope');
    expectError(await activities(id, { pageSize: 1000 }), 400, 'pageSize');
    expect((await api(`/v2/tickets/${id}.json`, { method: 'DELETE', key: agent })).status).toBe(204);
    await drained(site.id);
    const [last] = await rows<{ event_type: string }>(
      'SELECT event_type FROM ticket_activities WHERE ticket_id = $1 ORDER BY id DESC LIMIT 1',
      [id],
    );
    expect(last!.event_type).toBe('ticket.deleted');
    expectError(await activities(id), 404, 'id');
  });
});

describe('who reads a history', () => {
  it("another installation's key and a collaborator who does not follow the ticket get a 404; writes are not routes", async () => {
    const id = (
      await api('/v2/tickets.json', {
        method: 'POST',
        key: agent,
        body: { subject: 'Private', inbox, customer, message: 'x' },
      })
    ).body.ticket.id;
    const other = await newInstallation('ticket-history-other');
    expectError(await activities(id, {}, other.users.owner.apiKey), 404, 'id');
    expectError(await activities(id, {}, site.users.collaborator.apiKey), 404, 'id');
    const [line] = (await activities(id)).body.ticketactivities;
    expectError(await api(`/v2/ticketactivities/${line.id}.json`, { key: other.users.owner.apiKey }), 404, 'id');
    expect((await api(`/v2/ticketactivities/${line.id}.json`, { method: 'DELETE', key: owner })).status).toBe(404);
  });
});
