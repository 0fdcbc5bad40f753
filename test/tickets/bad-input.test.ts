// Bad input to tickets: each request gets the right 4xx naming the culprit, and the database
// (tickets, thread entries, tags and followers, customers, and the events) is left exactly as it was.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { refusals } from '../support/refusals';

let site: SeededInstallation;
let other: SeededInstallation;
const ids = { mine: 0, theirs: 0, inbox: 0, customer: 0, theirTag: 0, theirPriority: 0 };

async function snapshot() {
  const installations = [site.id, other.id];
  return {
    tickets: await rows('SELECT to_jsonb(t) AS row FROM tickets t WHERE installation_id = ANY($1) ORDER BY id', [
      installations,
    ]),
    messages: await rows('SELECT count(*)::int AS n FROM ticket_messages WHERE installation_id = ANY($1)', [
      installations,
    ]),
    links: await rows(
      'SELECT (SELECT count(*) FROM ticket_tags WHERE installation_id = ANY($1))::int AS tags, (SELECT count(*) FROM ticket_followers WHERE installation_id = ANY($1))::int AS followers',
      [installations],
    ),
    customers: await rows('SELECT count(*)::int AS n FROM customers WHERE installation_id = ANY($1)', [installations]),
    events: await rows('SELECT count(*)::int AS n FROM events WHERE installation_id = ANY($1)', [installations]),
  };
}

const refused = refusals(snapshot, () => site.users.agent.apiKey);
const list = '/v2/tickets.json';
const one = (id: number) => `/v2/tickets/${id}.json`;

beforeAll(async () => {
  site = await newInstallation('tickets-bad');
  other = await newInstallation('tickets-bad-other');
  const key = site.users.agent.apiKey;
  ids.inbox = (await api('/v2/inboxes.json', { key })).body.inboxes[0].id;
  ids.customer = (
    await api('/v2/customers.json', { method: 'POST', key, body: { email: 'bad@tickets.test' } })
  ).body.customer.id;
  ids.mine = (
    await api(list, { method: 'POST', key, body: { subject: 'Mine', inbox: ids.inbox, customer: ids.customer } })
  ).body.ticket.id;
  const theirKey = other.users.agent.apiKey;
  const theirInbox = (await api('/v2/inboxes.json', { key: theirKey })).body.inboxes[0].id;
  const theirCustomer = (
    await api('/v2/customers.json', { method: 'POST', key: theirKey, body: { email: 'theirs@tickets.test' } })
  ).body.customer.id;
  ids.theirs = (
    await api(list, {
      method: 'POST',
      key: theirKey,
      body: { subject: 'Theirs', inbox: theirInbox, customer: theirCustomer },
    })
  ).body.ticket.id;
  ids.theirTag = (await api('/v2/tags.json', { method: 'POST', key: theirKey, body: { name: 'theirs' } })).body.tag.id;
  ids.theirPriority = (
    await rows<{ id: number }>('SELECT id FROM ticket_priorities WHERE installation_id = $1 LIMIT 1', [other.id])
  )[0]!.id;
});

describe('/v2/tickets.json', () => {
  it('refuses malformed, non-object and deeply nested JSON', async () => {
    await refused(list, { method: 'POST', body: '{"subject": ' }, 400);
    await refused(list, { method: 'POST', body: '[]' }, 400);
    await refused(
      one(ids.mine),
      { method: 'PATCH', body: `{"ticket": {"tags": [${'{"a":'.repeat(2_000)}1${'}'.repeat(2_000)}]}}` },
      400,
    );
  });

  it('refuses wrong types (unknown properties beside them or not) and missing required ones, naming each', async () => {
    const valid = { subject: 'x', inbox: ids.inbox, customer: ids.customer };
    await refused(list, { method: 'POST', body: { ticket: { ...valid, subject: '' } } }, 400, 'ticket.subject');
    await refused(list, { method: 'POST', body: { ticket: { ...valid, cc: 'a@b.test' } } }, 400, 'ticket.cc');
    await refused(
      list,
      { method: 'POST', body: { ticket: { ...valid, cc: ['not an address'] } } },
      400,
      'ticket.cc[0]',
    );
    await refused(
      list,
      { method: 'POST', body: { ticket: { ...valid, editMethod: 'rtf' } } },
      400,
      'ticket.editMethod',
    );
    await refused(list, { method: 'POST', body: { ticket: { ...valid, status: null } } }, 400, 'ticket.status');
    await refused(list, { method: 'POST', body: { ticket: { ...valid, priority: 'high' } } }, 400, 'ticket.priority');
    // an unknown property (ignored alone) beside a wrong value: the 400 names the wrong one
    await refused(
      list,
      { method: 'POST', body: { ticket: { ...valid, urgency: 5, priority: 'urgent' } } },
      400,
      'ticket.priority',
    );
    await refused(
      list,
      { method: 'POST', body: { ticket: { subject: 'x', customer: ids.customer } } },
      400,
      'ticket.inbox',
    );
    await refused(
      list,
      { method: 'POST', body: { ticket: { inbox: ids.inbox, customer: ids.customer } } },
      400,
      'ticket.subject',
    );
    await refused(
      one(ids.mine),
      { method: 'PATCH', body: { ticket: { notifyCustomer: 'yes' } } },
      400,
      'ticket.notifyCustomer',
    );
    // what was expected, said where zod alone would say only "invalid input"
    expect(
      (
        await refused(
          list,
          { method: 'POST', body: { ticket: { ...valid, customer: 'a@b.test' } } },
          400,
          'ticket.customer',
        )
      ).detail,
    ).toBe('must be a customer: its id N, {"id": N}, or {"email": "..."} (with firstName and lastName for a new one)');
    expect(
      (
        await refused(
          list,
          { method: 'POST', body: { ticket: { ...valid, customer: { email: 'not an address' } } } },
          400,
          'ticket.customer',
        )
      ).detail,
    ).toMatch(/^email: /);
    expect(
      (
        await refused(
          list,
          { method: 'POST', body: { ticket: { ...valid, customer: { firstName: 'Ada' } } } },
          400,
          'ticket.customer',
        )
      ).detail,
    ).toBe('name the customer by id or by email');
    expect(
      (await refused(list, { method: 'POST', body: { ticket: { ...valid, tags: ['vip'] } } }, 400, 'ticket.tags[0]'))
        .detail,
    ).toBe('must be a reference to tags, {"id": N}');
    expect(
      (
        await refused(
          list,
          { method: 'POST', body: { ticket: { ...valid, tags: [{ name: 'vip' }] } } },
          400,
          'ticket.tags[0].id',
        )
      ).detail,
    ).toMatch(/^must be an id/);
    expect(
      (await refused(list, { method: 'POST', body: { ticket: { ...valid, status: 'solved' } } }, 400, 'ticket.status'))
        .detail,
    ).toBe('must be a reference to ticketstatuses, {"id": N}, or its id N');
    // the first message is a create's (a reply is POST /v2/tickets/{id}/messages.json): an update ignores it, names it, and writes no entry
    const entries = async () => rows('SELECT count(*)::int AS n FROM ticket_messages WHERE ticket_id = $1', [ids.mine]);
    const before = await entries();
    const ignoring = await api(one(ids.mine), {
      method: 'PATCH',
      key: site.users.agent.apiKey,
      body: { message: 'a reply?' },
    });
    expect(ignoring.status, ignoring.text).toBe(200);
    expect(ignoring.headers.get('x-ignored-properties')).toBe('ticket.message');
    expect(await entries()).toEqual(before);
  });

  it("refuses another installation's inbox, customer, priority, tag and teammate (400)", async () => {
    await refused(
      one(ids.mine),
      { method: 'PATCH', body: { priority: { id: ids.theirPriority } } },
      400,
      'ticket.priority',
    );
    await refused(one(ids.mine), { method: 'PATCH', body: { tags: [{ id: ids.theirTag }] } }, 400, 'ticket.tags[0].id');
    await refused(
      one(ids.mine),
      { method: 'PATCH', body: { agent: { id: other.users.agent.id } } },
      400,
      'ticket.agent',
    );
    await refused(
      one(ids.mine),
      { method: 'PATCH', body: { followers: [{ id: other.users.agent.id }] } },
      400,
      'ticket.followers[0].id',
    );
    await refused(
      one(ids.mine),
      { method: 'PATCH', body: { customer: { id: 2_000_000_000 } } },
      400,
      'ticket.customer',
    );
  });

  it('refuses unknown filter, orderBy, includes and fields names, bad operands, and a page too large', async () => {
    await refused(list, { query: { filter: { secret: 1 } } }, 400, 'filter.secret');
    await refused(list, { query: { filter: { 'tags.id': { $in: ['a'] } } } }, 400, 'filter.tags.id');
    await refused(list, { query: { filter: { 'statuses.id': { $contains: 'x' } } } }, 400, 'filter.statuses.id');
    await refused(list, { query: { orderBy: 'tags.id' } }, 400, 'orderBy');
    await refused(list, { query: { includes: 'projects' } }, 400, 'includes');
    await refused(list, { query: { fields: 'message' } }, 400, 'fields');
    await refused(list, { query: { pageSize: 1_000 } }, 400, 'pageSize');
  });

  it("answers another installation's ticket, and one that never was, as 404; a collaborator may not write (403)", async () => {
    for (const id of [ids.theirs, 2_000_000_000]) {
      await refused(one(id), {}, 404, 'id');
      await refused(one(id), { method: 'PATCH', body: { subject: 'x' } }, 404, 'id');
      await refused(one(id), { method: 'DELETE' }, 404, 'id');
    }
    await refused(
      list,
      {
        method: 'POST',
        body: { subject: 'x', inbox: ids.inbox, customer: ids.customer },
        key: site.users.collaborator.apiKey,
      },
      403,
    );
    await refused(list, { key: null }, 401);
  });
});
