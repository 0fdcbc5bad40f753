// Tickets, first part: create (wrapped or bare; the customer by id or by email), defaults, the
// first message as the first thread entry (sanitized, Markdown rendered), reads with the
// platform's filters and includes, changes with their events, who sees what, soft delete, and
// the vocabulary in use.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { eventsSince, lastEventId, summary } from '../support/events';

let site: SeededInstallation;
let agent: string;
let admin: string;
let support: number;
let customer: number;

beforeAll(async () => {
  site = await newInstallation('tickets');
  agent = site.users.agent.apiKey;
  admin = site.users.admin.apiKey;
  support = (await api('/v2/inboxes.json', { key: admin, query: { filter: { name: 'Support' } } })).body.inboxes[0].id;
  customer = (
    await api('/v2/customers.json', {
      method: 'POST',
      key: agent,
      body: { email: 'ada@tickets.test', firstName: 'Ada' },
    })
  ).body.customer.id;
});

const create = (body: unknown, key = agent, query?: Record<string, string>) =>
  api('/v2/tickets.json', { method: 'POST', key, body, query });
const ticketCount = async () =>
  (await rows<{ n: number }>('SELECT count(*)::int AS n FROM tickets WHERE installation_id = $1', [site.id]))[0]!.n;

describe('creating a ticket', () => {
  it("takes the wrapped body; defaults: the inbox status, the default type, no agent; the first message is the customer's first thread entry", async () => {
    const mark = await lastEventId(site.id);
    const created = await create(
      {
        ticket: {
          subject: 'Printer on fire',
          inbox: { id: support },
          customer: { id: customer },
          message: '<p>Help <script>alert(1)</script>please</p>',
        },
      },
      agent,
      { includes: 'messages' },
    );
    expect(created.status, created.text).toBe(201);
    const ticket = created.body.ticket;
    expect(ticket).toMatchObject({
      type: { id: expect.any(Number), type: 'tickettypes' },
      subject: 'Printer on fire',
      inbox: { id: support, type: 'inboxes' },
      customer: { id: customer, type: 'customers' },
      agent: null,
      status: { id: 1, type: 'ticketstatuses' },
      priority: null,
      messageCount: 1,
      previewText: 'Help please',
      cc: [],
      bcc: [],
      notifyCustomer: true,
    });
    expect(created.body.included.messages).toEqual([
      expect.objectContaining({
        message: '<p>Help please</p>',
        textBody: 'Help please',
        threadType: 'message',
        customer: { id: customer, type: 'customers' },
        createdBy: { id: site.users.agent.id, type: 'users' },
      }),
    ]);
    const [defaultType] = await rows<{ id: number }>(
      `SELECT id FROM ticket_types WHERE installation_id = $1 AND is_default`,
      [site.id],
    );
    expect(ticket.type.id).toBe(defaultType!.id);
    expect(summary(await eventsSince(site.id, mark))).toEqual(['tickets:created', 'messages:created']);
  });

  it('takes the bare body, a customer by an unknown email (made, addMethod ticket) or a known one, and Markdown', async () => {
    const made = await create(
      {
        subject: 'New person',
        inbox: support,
        customer: { email: 'Grace@Tickets.test', firstName: 'Grace' },
        message: '**Bold** ask',
        editMethod: 'markdown',
      },
      agent,
      { includes: 'messages,customers' },
    );
    expect(made.status, made.text).toBe(201);
    expect(made.body.included.customers).toEqual([
      expect.objectContaining({ email: 'Grace@Tickets.test', firstName: 'Grace', addMethod: 'ticket' }),
    ]);
    expect(made.body.included.messages[0]).toMatchObject({
      message: '<p><strong>Bold</strong> ask</p>',
      editMethod: 'markdown',
    });
    const known = await create({ subject: 'Again', inbox: support, customer: { email: 'ada@TICKETS.test' } });
    expect(known.body.ticket.customer.id).toBe(customer);
    // a customer made by a ticket joins the company of its email's domain, as one made directly does
    const company = (
      await api('/v2/companies.json', {
        method: 'POST',
        key: agent,
        body: { name: 'Domain Co', domains: [{ name: 'domain-co.test' }] },
      })
    ).body.company.id;
    const joined = await create({
      subject: 'From a company',
      inbox: support,
      customer: { email: 'lin@domain-co.test' },
    });
    const sender = await api(`/v2/customers/${joined.body.ticket.customer.id}.json`, {
      key: agent,
      query: { includes: 'companies' },
    });
    expect(sender.body.customer.companies).toEqual([{ id: company, type: 'companies' }]);
  });

  it('refuses a customer named by id with an email not theirs, or not named, a foreign inbox, a collaborator as agent — writing nothing', async () => {
    const before = await ticketCount();
    expectError(
      await create({ subject: 'x', inbox: support, customer: { id: customer, email: 'a@b.test' } }),
      400,
      'ticket.customer.email',
    );
    expectError(await create({ subject: 'x', inbox: support }), 400, 'ticket.customer');
    const other = await newInstallation('tickets-other');
    const theirInbox = (await api('/v2/inboxes.json', { key: other.users.admin.apiKey })).body.inboxes[0].id;
    expectError(await create({ subject: 'x', inbox: theirInbox, customer }), 400, 'ticket.inbox');
    expectError(
      await create({ subject: 'x', inbox: support, customer, agent: { id: site.users.collaborator.id } }),
      400,
      'ticket.agent',
    );
    expectError(
      await create({ subject: 'x', inbox: support, customer: { email: 'not-an-email' } }),
      400,
      /^ticket\.customer/,
    );
    expect(await ticketCount()).toBe(before);
  });
});

describe('reading and changing tickets', () => {
  let id: number;
  let tag: number;

  beforeAll(async () => {
    id = (await create({ subject: 'Change me', inbox: support, customer, message: 'hello' })).body.ticket.id;
    tag = (await api('/v2/tags.json', { method: 'POST', key: agent, body: { name: 'urgent-ish' } })).body.tag.id;
  });

  it('assigns, tags, follows and changes status with PATCH, each with its event; unassigns with null', async () => {
    const [priority] = await rows<{ id: number }>(
      `SELECT id FROM ticket_priorities WHERE installation_id = $1 AND name = 'High'`,
      [site.id],
    );
    const mark = await lastEventId(site.id);
    const changed = await api(`/v2/tickets/${id}.json`, {
      method: 'PATCH',
      key: agent,
      query: { includes: 'tags,followers' },
      body: {
        status: { id: 3 },
        priority: { id: priority!.id },
        agent: { id: site.users.agent.id },
        tags: [{ id: tag }],
        followers: [{ id: site.users.collaborator.id }],
      },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.ticket).toMatchObject({
      status: { id: 3 },
      agent: { id: site.users.agent.id },
      tags: [{ id: tag, type: 'tags' }],
      followers: [{ id: site.users.collaborator.id, type: 'users' }],
    });
    expect(summary(await eventsSince(site.id, mark))).toEqual(['tickets:updated', 'tickets:linked', 'tickets:linked']);
    const untagged = await api(`/v2/tickets/${id}.json`, {
      method: 'PUT',
      key: agent,
      body: { ticket: { tags: [{ id: tag, meta: { delete: true } }], agent: null } },
      query: { includes: 'tags' },
    });
    expect(untagged.body.ticket).toMatchObject({ tags: [], agent: null });
  });

  it('lists with the platform filters: statuses.id, inboxes.id, customers.id, users.id (null: unassigned), tags.id, companies.id', async () => {
    const company = (
      await api('/v2/companies.json', {
        method: 'POST',
        key: agent,
        body: { name: 'Tickets Co', customers: [{ id: customer }] },
      })
    ).body.company.id;
    await api(`/v2/tickets/${id}.json`, { method: 'PATCH', key: agent, body: { tags: [{ id: tag }] } });
    const ids = async (filter: Record<string, unknown>) => {
      const response = await api('/v2/tickets.json', { key: agent, query: { filter, orderBy: 'id' } });
      expect(response.status, response.text).toBe(200);
      return response.body.tickets.map((t: any) => t.id);
    };
    expect(await ids({ 'tags.id': { $in: [tag] } })).toEqual([id]);
    expect(await ids({ 'tags.id': { $nin: [tag] }, 'customers.id': customer })).not.toContain(id);
    expect(await ids({ 'companies.id': { $in: [company] }, 'statuses.id': { $in: [3] } })).toEqual([id]);
    expect((await ids({ 'users.id': null, 'inboxes.id': { $in: [support] } })).length).toBeGreaterThan(1);
    expectError(
      await api('/v2/tickets.json', { key: agent, query: { filter: { 'tags.name': 'x' } } }),
      400,
      'filter.tags.name',
    );
  });

  it('gets with includes=all: the customer, inbox, status, type, users and the thread', async () => {
    const read = await api(`/v2/tickets/${id}.json`, { key: agent, query: { includes: 'all' } });
    expect(read.status, read.text).toBe(200);
    for (const name of ['customers', 'inboxes', 'ticketstatuses', 'tickettypes', 'messages', 'tags', 'users'])
      expect(read.body.included[name], name).toBeDefined();
    expect(read.body.included.ticketstatuses).toEqual([expect.objectContaining({ id: 3, code: 'waiting' })]);
  });
});

describe('who sees which ticket', () => {
  it('an agent sees the inboxes they work (restricted: only their own), a collaborator what they follow, another installation nothing', async () => {
    const billing = (
      await api('/v2/inboxes.json', {
        method: 'POST',
        key: admin,
        body: { name: 'Billing', users: [{ id: site.users.agent.id, meta: { access: 'restricted' } }] },
      })
    ).body.inbox.id;
    const hidden = (await create({ subject: 'Not yours', inbox: billing, customer }, admin)).body.ticket.id;
    const mine = (await create({ subject: 'Yours', inbox: billing, customer, agent: site.users.agent.id }, admin)).body
      .ticket.id;
    expectError(await api(`/v2/tickets/${hidden}.json`, { key: agent }), 404, 'id');
    expect((await api(`/v2/tickets/${mine}.json`, { key: agent })).status).toBe(200);
    const listed = (
      await api('/v2/tickets.json', { key: agent, query: { filter: { 'inboxes.id': billing } } })
    ).body.tickets.map((t: any) => t.id);
    expect(listed).toEqual([mine]);
    expectError(
      await api(`/v2/tickets/${hidden}.json`, { method: 'PATCH', key: agent, body: { subject: 'mine now' } }),
      404,
      'id',
    );
    // the collaborator follows one ticket
    expectError(await api(`/v2/tickets/${mine}.json`, { key: site.users.collaborator.apiKey }), 404, 'id');
    await api(`/v2/tickets/${mine}.json`, {
      method: 'PATCH',
      key: admin,
      body: { followers: [{ id: site.users.collaborator.id }] },
    });
    expect((await api(`/v2/tickets/${mine}.json`, { key: site.users.collaborator.apiKey })).status).toBe(200);
    expectError(await create({ subject: 'x', inbox: support, customer }, site.users.collaborator.apiKey), 403);
    // an agent may not put a ticket where they would not see it
    const before = await ticketCount();
    expectError(await create({ subject: 'Lost', inbox: billing, customer }), 403);
    expect(await ticketCount()).toBe(before);
    const other = await newInstallation('tickets-see-other');
    expectError(await api(`/v2/tickets/${mine}.json`, { key: other.users.owner.apiKey }), 404, 'id');
  });
});

describe('deleting', () => {
  it('soft-deletes a ticket; a status, priority or inbox in use is deleted only with replaceWith, which moves its tickets', async () => {
    const status = (
      await api('/v2/ticketstatuses.json', { method: 'POST', key: admin, body: { name: 'Escalated', code: 'active' } })
    ).body.ticketstatus.id;
    const id = (await create({ subject: 'Escalate', inbox: support, customer, status: { id: status } })).body.ticket.id;
    expectError(
      await api(`/v2/ticketstatuses/${status}.json`, { method: 'DELETE', key: admin }),
      409,
      null,
      /replaceWith/,
    );
    expect(
      (await api(`/v2/ticketstatuses/${status}.json`, { method: 'DELETE', key: admin, query: { replaceWith: 4 } }))
        .status,
    ).toBe(204);
    expect((await api(`/v2/tickets/${id}.json`, { key: agent })).body.ticket.status.id).toBe(4);
    expect((await api(`/v2/tickets/${id}.json`, { method: 'DELETE', key: agent })).status).toBe(204);
    expectError(await api(`/v2/tickets/${id}.json`, { key: agent }), 404, 'id');
    expect(await rows('SELECT state FROM tickets WHERE id = $1', [id])).toEqual([{ state: 'deleted' }]);
  });
});
