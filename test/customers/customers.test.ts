// Customers: the platform's record, contacts written inline, lookups by contact value, company
// links both ways (and by email domain), merge.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { drained, eventsSince, lastEventId, summary } from '../support/events';

let site: SeededInstallation;
let agent: string;

beforeAll(async () => {
  site = await newInstallation('customers');
  agent = site.users.agent.apiKey;
});

const create = (body: unknown, query?: Record<string, string>) =>
  api('/v2/customers.json', { method: 'POST', key: agent, body, query });
const contactsOf = (id: number) =>
  rows<{ type: string; value: string; isMain: boolean }>(
    `SELECT type, value, is_main AS "isMain" FROM customer_contacts WHERE customer_id = $1 AND state = 'active' ORDER BY id`,
    [id],
  );

describe('a customer', () => {
  it('is created from an email alone: its main email contact, every property of the platform record', async () => {
    const created = await create(
      { customer: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.test', extraData: '{"plan":"gold"}' } },
      { includes: 'contacts' },
    );
    expect(created.status, created.text).toBe(201);
    const customer = created.body.customer;
    expect(customer).toMatchObject({
      type: 'customers',
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.test',
      extraData: '{"plan":"gold"}',
      numTickets: 0,
      trusted: false,
      verifiedEmail: false,
      welcomeEmailSent: false,
      permission: 'all',
      addMethod: 'api',
      linkedinURL: null,
      facebookURL: null,
      twitterHandle: null,
      avatarURL: null,
      jobTitle: null,
      contacts: [{ id: expect.any(Number), type: 'contacts' }],
    });
    expect(created.body.included.contacts).toEqual([
      expect.objectContaining({ type: 'email', value: 'ada@example.test', isMain: true }),
    ]);
    expect(await contactsOf(customer.id)).toEqual([{ type: 'email', value: 'ada@example.test', isMain: true }]);
  });

  it('is created from its contacts, top level or under included.contacts; the main email is its email', async () => {
    const created = await create({
      customer: { firstName: 'Grace', contacts: [{ type: 'twitter', value: '@grace' }] },
      included: {
        contacts: [
          { id: 0, type: 'email', value: 'grace@navy.test' },
          { id: 0, type: 'email', value: 'gh@navy.test', isMain: true },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.customer.email).toBe('gh@navy.test');
    expect(await contactsOf(created.body.customer.id)).toEqual([
      { type: 'twitter', value: '@grace', isMain: true },
      { type: 'email', value: 'grace@navy.test', isMain: false },
      { type: 'email', value: 'gh@navy.test', isMain: true },
    ]);
  });

  it('needs an email address', async () => {
    const before = await rows('SELECT count(*)::int AS n FROM customers WHERE installation_id = $1', [site.id]);
    expectError(await create({ customer: { firstName: 'Nobody' } }), 400, 'customer.email');
    expectError(
      await create({ customer: { contacts: [{ type: 'twitter', value: '@nobody' }] } }),
      400,
      'customer.email',
    );
    expectError(await create({ customer: { email: 'not an email' } }), 400, 'customer.email');
    expectError(
      await create({ customer: { contacts: [{ type: 'email', value: 'nope' }] } }),
      400,
      'customer.contacts[0].value',
    );
    expectError(
      await create({ customer: { contacts: [{ type: 'fax', value: '123' }] } }),
      400,
      'customer.contacts[0].type',
    );
    expectError(
      await create({
        customer: {
          email: 'two@mains.test',
          contacts: [
            { type: 'email', value: 'a@mains.test', isMain: true },
            { type: 'email', value: 'b@mains.test', isMain: true },
          ],
        },
      }),
      400,
      'customer.contacts',
    );
    expect(await rows('SELECT count(*)::int AS n FROM customers WHERE installation_id = $1', [site.id])).toEqual(
      before,
    );
  });

  it('keeps contact values unique in the installation: 409 naming the contact, nothing written', async () => {
    const first = await create({ email: 'taken@example.test' });
    const before = await rows('SELECT count(*)::int AS n FROM customer_contacts WHERE installation_id = $1', [site.id]);
    const conflict = await create({ email: 'TAKEN@example.test' });
    expectError(
      conflict,
      409,
      'customer.contacts',
      new RegExp(`taken@example.test is already a contact of customer ${first.body.customer.id}`, 'i'),
    );
    const second = await create({ email: 'free@example.test' });
    expectError(
      await api(`/v2/customers/${second.body.customer.id}.json`, {
        method: 'PATCH',
        key: agent,
        body: { contacts: [{ type: 'email', value: 'taken@example.test' }] },
      }),
      409,
      'customer.contacts',
      /taken@example.test/,
    );
    expect(
      await rows('SELECT count(*)::int AS n FROM customer_contacts WHERE installation_id = $1', [site.id]),
    ).toEqual([{ n: (before[0] as { n: number }).n + 1 }]);
    // another installation may hold the same value
    const other = await newInstallation('customers-other');
    const theirs = await api('/v2/customers.json', {
      method: 'POST',
      key: other.users.agent.apiKey,
      body: { email: 'taken@example.test' },
    });
    expect(theirs.status, theirs.text).toBe(201);
  });

  it('changes its email: an address it has becomes main, a new one is added as main', async () => {
    const id = (await create({ email: 'old@change.test', contacts: [{ type: 'email', value: 'second@change.test' }] }))
      .body.customer.id;
    const mark = await lastEventId(site.id);
    const moved = await api(`/v2/customers/${id}.json`, {
      method: 'PUT',
      key: agent,
      body: { customer: { email: 'second@change.test' } },
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.customer.email).toBe('second@change.test');
    expect(await contactsOf(id)).toEqual([
      { type: 'email', value: 'second@change.test', isMain: true },
      { type: 'email', value: 'old@change.test', isMain: false },
    ]);
    expect(summary(await eventsSince(site.id, mark))).toEqual([
      'customers:updated',
      'customercontacts:updated',
      'customercontacts:updated',
    ]);
    await api(`/v2/customers/${id}.json`, { method: 'PATCH', key: agent, body: { email: 'third@change.test' } });
    expect((await contactsOf(id)).filter((c) => c.isMain)).toEqual([
      { type: 'email', value: 'third@change.test', isMain: true },
    ]);
  });

  it('loses a contact with delete: true; the oldest email becomes main when the main one goes, and the last email cannot go', async () => {
    const created = await create(
      { email: 'a@remove.test', contacts: [{ type: 'email', value: 'b@remove.test' }] },
      { includes: 'contacts' },
    );
    const idOf = (value: string) => created.body.included.contacts.find((c: any) => c.value === value).id;
    const [a, b] = [idOf('a@remove.test'), idOf('b@remove.test')];
    const removed = await api(`/v2/customers/${created.body.customer.id}.json`, {
      method: 'PATCH',
      key: agent,
      body: { contacts: [{ id: a, meta: { delete: true } }] },
    });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.customer.email).toBe('b@remove.test');
    expect(await contactsOf(created.body.customer.id)).toEqual([
      { type: 'email', value: 'b@remove.test', isMain: true },
    ]);
    expectError(
      await api(`/v2/customers/${created.body.customer.id}.json`, {
        method: 'PATCH',
        key: agent,
        body: { contacts: [{ id: b, delete: true }] },
      }),
      400,
      'customer.contacts',
      /at least one email/,
    );
    expect(await contactsOf(created.body.customer.id)).toHaveLength(1);
  });

  it('is found by a contact value with $in, and not found with $nin', async () => {
    const one = (await create({ email: 'find-1@lookup.test', contacts: [{ type: 'twitter', value: '@findme' }] })).body
      .customer.id;
    const two = (await create({ email: 'find-2@lookup.test' })).body.customer.id;
    const found = await api('/v2/customers.json', {
      key: agent,
      query: {
        filter: { 'contacts.value': { $in: ['@findme', 'find-2@lookup.test', 'nobody@lookup.test'] } },
        orderBy: 'id',
      },
    });
    expect(found.status, found.text).toBe(200);
    expect(found.body.customers.map((c: any) => c.id)).toEqual([one, two]);
    const not = await api('/v2/customers.json', {
      key: agent,
      query: { filter: { 'contacts.value': { $nin: ['@findme'] }, email: { $contains: '@lookup.test' } } },
    });
    expect(not.body.customers.map((c: any) => c.id)).toEqual([two]);
    expectError(await api('/v2/customers.json', { key: agent, query: { orderBy: 'contacts.value' } }), 400, 'orderBy');
  });

  it('checks a changed contact against the type it will have, and finds values ignoring case', async () => {
    const created = await create(
      { email: 'types@check.test', contacts: [{ type: 'twitter', value: '@typed' }] },
      { includes: 'contacts' },
    );
    const twitter = created.body.included.contacts.find((c: any) => c.type === 'twitter').id;
    const renamed = await api(`/v2/customers/${created.body.customer.id}.json`, {
      method: 'PATCH',
      key: agent,
      body: { contacts: [{ id: twitter, value: '@retyped' }] },
    });
    expect(renamed.status, renamed.text).toBe(200);
    expectError(
      await api(`/v2/customers/${created.body.customer.id}.json`, {
        method: 'PATCH',
        key: agent,
        body: { contacts: [{ id: twitter, type: 'email' }] },
      }),
      400,
      'customer.contacts[0].value',
      /email/,
    );
    const found = await api('/v2/customers.json', {
      key: agent,
      query: { filter: { 'contacts.value': { $in: ['TYPES@Check.test'] } } },
    });
    expect(found.body.customers.map((c: any) => c.id)).toEqual([created.body.customer.id]);
  });

  it('written before contacts existed (no contact), stays writable; its contacts rules apply once they are written', async () => {
    const [old] = await rows<{ id: number }>(
      `INSERT INTO customers (installation_id, email) VALUES ($1, 'legacy@old.test') RETURNING id`,
      [site.id],
    );
    const patched = await api(`/v2/customers/${old!.id}.json`, {
      method: 'PATCH',
      key: agent,
      body: { firstName: 'Legacy', email: 'legacy@old.test' },
    });
    expect(patched.status, patched.text).toBe(200);
    const moved = await api(`/v2/customers/${old!.id}.json`, {
      method: 'PATCH',
      key: agent,
      body: { email: 'legacy@new.test' },
    });
    expect(moved.status, moved.text).toBe(200);
    expect(await contactsOf(old!.id)).toEqual([{ type: 'email', value: 'legacy@new.test', isMain: true }]);
  });

  it('is deleted with its contacts, whose values are free again', async () => {
    const id = (await create({ email: 'gone@delete.test' })).body.customer.id;
    expect((await api(`/v2/customers/${id}.json`, { method: 'DELETE', key: agent })).status).toBe(204);
    expect(await contactsOf(id)).toEqual([]);
    expect((await create({ email: 'gone@delete.test' })).status).toBe(201);
  });
});

describe('companies and customers', () => {
  it('link both ways, and a new customer joins the company of its email domain (kind company only)', async () => {
    const company = await api('/v2/companies.json', {
      method: 'POST',
      key: agent,
      body: { company: { name: 'Initech', domains: [{ name: 'initech.test' }] } },
    });
    const group = await api('/v2/companies.json', {
      method: 'POST',
      key: agent,
      body: { company: { name: 'Initech fans', kind: 'group', domains: [{ name: 'initech.test' }] } },
    });
    expect(group.status, group.text).toBe(201);
    const mark = await lastEventId(site.id);
    const peter = await create({ email: 'Peter@Initech.test' }, { includes: 'companies' });
    expect(peter.status, peter.text).toBe(201);
    expect(peter.body.customer.companies).toEqual([{ id: company.body.company.id, type: 'companies' }]);
    expect(peter.body.included.companies).toEqual([expect.objectContaining({ name: 'Initech', customersCount: 1 })]);
    const linked = (await eventsSince(site.id, mark)).find((e) => e.kind === 'linked');
    expect(linked).toMatchObject({
      recordType: 'customers',
      recordId: peter.body.customer.id,
      data: { relation: 'companies', addMethod: 'domain', record: { id: company.body.company.id } },
    });
    const fromCompany = await api(`/v2/companies/${company.body.company.id}.json`, {
      key: agent,
      query: { includes: 'customers' },
    });
    expect(fromCompany.body.company.customers).toEqual([{ id: peter.body.customer.id, type: 'customers' }]);
    // linked and unlinked from the customer's side
    const unlinked = await api(`/v2/customers/${peter.body.customer.id}.json`, {
      method: 'PATCH',
      key: agent,
      body: { companies: [{ id: company.body.company.id, delete: true }, { id: group.body.company.id }] },
    });
    expect(unlinked.body.customer.companies).toEqual([{ id: group.body.company.id, type: 'companies' }]);
  });
});

describe('a bulk update of customers', () => {
  it('sets plain properties on every customer the filter selects, their emails and contacts as they were', async () => {
    const a = (await create({ customer: { email: 'bulk-a@example.test' } })).body.customer.id;
    const b = (await create({ customer: { email: 'bulk-b@example.test' } })).body.customer.id;
    const updated = await api('/v2/customers/update.json', {
      method: 'PATCH',
      key: agent,
      query: { filter: JSON.stringify({ id: { $in: [a, b] } }) },
      body: { customer: { trusted: true, organization: 'Bulk Ltd' } },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ affected: 2, ids: [a, b], dryRun: false });
    expect(
      await rows('SELECT email, trusted, organization FROM customers WHERE id = ANY($1) ORDER BY id', [[a, b]]),
    ).toEqual([
      { email: 'bulk-a@example.test', trusted: true, organization: 'Bulk Ltd' },
      { email: 'bulk-b@example.test', trusted: true, organization: 'Bulk Ltd' },
    ]);
    expect(await contactsOf(b)).toEqual([{ type: 'email', value: 'bulk-b@example.test', isMain: true }]);
  });
});

describe('merging customers', () => {
  it('moves contacts, company links and chat visitors, deletes the other, one event each', async () => {
    const keep = (await create({ email: 'keep@merge.test', contacts: [{ type: 'twitter', value: '@keeper' }] })).body
      .customer.id;
    const company = (await api('/v2/companies.json', { method: 'POST', key: agent, body: { name: 'Merge Co' } })).body
      .company.id;
    const fold = (
      await create({
        email: 'fold@merge.test',
        contacts: [
          { type: 'twitter', value: '@folder' },
          { type: 'linkedin', value: 'https://linkedin.example/in/fold' },
        ],
        companies: [{ id: company }],
      })
    ).body.customer.id;
    const [visitor] = await rows<{ id: number }>(
      `INSERT INTO contacts (installation_id, name, email, customer_id) VALUES ($1, 'Fold', 'fold@merge.test', $2) RETURNING id`,
      [site.id, fold],
    );
    const mark = await lastEventId(site.id);
    const merged = await api(`/v2/customers/${keep}/merge.json`, {
      method: 'POST',
      key: agent,
      body: { customer: { id: fold } },
    });
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.customer).toMatchObject({
      id: keep,
      email: 'keep@merge.test',
      companies: [{ id: company, type: 'companies' }],
    });
    expect(await contactsOf(keep)).toEqual([
      { type: 'twitter', value: '@keeper', isMain: true },
      { type: 'email', value: 'keep@merge.test', isMain: true },
      { type: 'twitter', value: '@folder', isMain: false },
      { type: 'linkedin', value: 'https://linkedin.example/in/fold', isMain: true },
      { type: 'email', value: 'fold@merge.test', isMain: false },
    ]);
    expect(await rows('SELECT customer_id AS "customerId" FROM contacts WHERE id = $1', [visitor!.id])).toEqual([
      { customerId: keep },
    ]);
    expect((await api(`/v2/customers/${fold}.json`, { key: agent })).status).toBe(404);
    const events = await eventsSince(site.id, mark);
    expect(summary(events)).toEqual([
      'customercontacts:updated',
      'customercontacts:updated',
      'customercontacts:updated',
      'customers:linked',
      'contacts:updated',
      'customers:deleted',
      'customers:merged',
    ]);
    // the other's main twitter contact lost the mark to this customer's; its main linkedin one kept it
    expect(events.slice(0, 3).map((e) => e.data.isMain ?? null)).toEqual(
      expect.arrayContaining([{ before: true, after: false }, null]),
    );
    expect(events.filter((e) => (e.data as any).isMain).length).toBe(2);
  });

  it("moves the other's tickets, deleted ones too, and the entries they wrote; the tickets are found by this customer's name", async () => {
    const keep = (await create({ firstName: 'Keeper', email: 'keeper@tickets-merge.test' })).body.customer.id;
    const fold = (await create({ firstName: 'Folded', email: 'folded@tickets-merge.test' })).body.customer.id;
    const inbox = (await api('/v2/inboxes.json', { key: agent })).body.inboxes[0].id;
    const open = async (subject: string) => {
      const created = await api('/v2/tickets.json', {
        method: 'POST',
        key: agent,
        body: { subject, inbox, customer: { id: fold }, message: 'Written by the customer' },
      });
      expect(created.status, created.text).toBe(201);
      return created.body.ticket.id as number;
    };
    const live = await open('Moves with its customer');
    const gone = await open('Deleted, moves too');
    expect(
      (
        await api(`/v2/tickets/${live}/messages.json`, {
          method: 'POST',
          key: agent,
          body: { message: 'Their answer', customer: { id: fold } },
        })
      ).status,
    ).toBe(201);
    expect((await api(`/v2/tickets/${gone}.json`, { method: 'DELETE', key: agent })).status).toBe(204);
    const mark = await lastEventId(site.id);
    expect(
      (await api(`/v2/customers/${keep}/merge.json`, { method: 'POST', key: agent, body: { customer: { id: fold } } }))
        .status,
    ).toBe(200);
    expect((await api(`/v2/tickets/${live}.json`, { key: agent })).body.ticket.customer).toEqual({
      id: keep,
      type: 'customers',
    });
    expect(
      await rows('SELECT id, customer_id AS "customerId" FROM tickets WHERE id = ANY($1) ORDER BY id', [[live, gone]]),
    ).toEqual([
      { id: live, customerId: keep },
      { id: gone, customerId: keep },
    ]);
    expect(
      await rows('SELECT count(*)::int AS n FROM ticket_messages WHERE ticket_id = ANY($1) AND customer_id = $2', [
        [live, gone],
        fold,
      ]),
    ).toEqual([{ n: 0 }]);
    expect(
      await rows('SELECT count(*)::int AS n FROM ticket_messages WHERE ticket_id = ANY($1) AND customer_id = $2', [
        [live, gone],
        keep,
      ]),
    ).toEqual([{ n: 3 }]);
    const thread = await api(`/v2/tickets/${live}/messages.json`, { key: agent });
    expect(thread.body.messages.map((m: { customer: unknown }) => m.customer)).toEqual([
      { id: keep, type: 'customers' },
      { id: keep, type: 'customers' },
    ]);
    const search = await api('/v2/search/tickets.json?search=keeper', { key: agent });
    expect(search.body.tickets.map((t: { id: number }) => t.id)).toEqual([live]);
    expect((await api('/v2/search/tickets.json?search=folded', { key: agent })).body.tickets).toEqual([]);
    const events = summary(await eventsSince(site.id, mark));
    expect(events.filter((e) => e === 'tickets:updated')).toHaveLength(2);
    expect(events.filter((e) => e === 'messages:updated')).toHaveLength(3);
    // the history tells the ticket's customer changed, once, and no entry as edited
    await drained(site.id);
    const history = (await api(`/v2/tickets/${live}/activities.json?pageSize=100`, { key: agent })).body
      .ticketactivities as { eventType: string; changes: Record<string, unknown> }[];
    expect(history.filter((a) => a.eventType === 'thread.edited')).toEqual([]);
    expect(history.filter((a) => 'customer' in (a.changes ?? {}))).toHaveLength(1);
  });

  it('refuses itself, an unknown other, and an unknown target, changing nothing', async () => {
    const keep = (await create({ email: 'self@merge.test' })).body.customer.id;
    const other = await newInstallation('customers-merge-other');
    const foreign = (
      await api('/v2/customers.json', {
        method: 'POST',
        key: other.users.agent.apiKey,
        body: { email: 'foreign@merge.test' },
      })
    ).body.customer.id;
    const mark = await lastEventId(site.id);
    expectError(
      await api(`/v2/customers/${keep}/merge.json`, { method: 'POST', key: agent, body: { customer: { id: keep } } }),
      400,
      'customer.id',
    );
    expectError(
      await api(`/v2/customers/${keep}/merge.json`, {
        method: 'POST',
        key: agent,
        body: { customer: { id: foreign } },
      }),
      400,
      'customer.id',
    );
    expectError(
      await api(`/v2/customers/${foreign}/merge.json`, {
        method: 'POST',
        key: agent,
        body: { customer: { id: keep } },
      }),
      404,
      'id',
    );
    expectError(
      await api(`/v2/customers/${keep}/merge.json`, { method: 'POST', key: agent, body: { customer: 'x' } }),
      400,
      'customer',
    );
    expectError(
      await api(`/v2/customers/${keep}/merge.json`, {
        method: 'POST',
        key: site.users.collaborator.apiKey,
        body: { customer: { id: keep } },
      }),
      403,
    );
    expect(await eventsSince(site.id, mark)).toEqual([]);
    expect((await api(`/v2/customers/${foreign}.json`, { key: other.users.agent.apiKey })).status).toBe(200);
  });
});
