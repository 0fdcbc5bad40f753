// A generic create or update, relations and checks included, is one exchange with the database
// (one HTTP batch, no WebSocket connection), and a check that fails inside that exchange answers
// the same 4xx naming the property, leaving nothing written (docs/connection-strategy.md).
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { awaitLogLines } from '../support/logs';

let site: SeededInstallation;
let other: SeededInstallation;
let key: string;

beforeAll(async () => {
  site = await newInstallation('one-trip');
  other = await newInstallation('one-trip-other');
  key = site.users.agent.apiKey;
  // the credential is looked up once, then remembered: the requests below are the write alone
  await api('/v2/companies.json', { key });
});

/** The request's database round trips, from its log line. */
async function tripsOf(path: string, init: { method: string; body: unknown; query?: Record<string, string> }) {
  const requestId = `trip-${Math.random().toString(36).slice(2)}`;
  const answer = await api(path, {
    key,
    method: init.method,
    body: init.body,
    query: init.query,
    headers: { 'x-request-id': requestId },
  });
  const [line] = await awaitLogLines({ requestId });
  return { answer, trips: line!.dbRoundTrips as number };
}

async function newCustomer(installation: SeededInstallation, email: string): Promise<number> {
  const made = await api('/v2/customers.json', {
    key: installation.users.agent.apiKey,
    method: 'POST',
    body: { customer: { email } },
  });
  expect(made.status, made.text).toBe(201);
  return made.body.customer.id as number;
}

describe('a generic write in one round trip', () => {
  it('creates a company with domains, phones, settings and linked customers in one exchange, and answers it as a read would', async () => {
    const customer = await newCustomer(site, `one-trip-${Date.now()}@example.com`);
    const { answer, trips } = await tripsOf('/v2/companies.json', {
      method: 'POST',
      body: {
        company: {
          name: `One trip ${Date.now()}`,
          domains: [{ name: `one-${Date.now()}.example.com` }, { name: `two-${Date.now()}.example.com` }],
          phones: [{ number: '+44 20 7946 0000' }],
          customers: [{ id: customer }],
          timelogsettings: { billable: true },
        },
      },
    });
    expect(answer.status, answer.text).toBe(201);
    expect(trips).toBe(1);
    const company = answer.body.company;
    expect(company.domains).toHaveLength(2);
    expect(company.customers).toEqual([expect.objectContaining({ id: customer, type: 'customers' })]);
    const read = await api(`/v2/companies/${company.id}.json`, {
      key,
      query: { includes: 'domains,phones,customers,timelogsettings' },
    });
    expect(read.body.company).toEqual(
      expect.objectContaining({
        id: company.id,
        name: company.name,
        domains: company.domains,
        customers: company.customers,
      }),
    );
    // each row with its event, written by the same exchange
    const events = await rows<{ record_type: string; kind: string; n: string }>(
      `SELECT record_type, kind, count(*) AS n FROM events
        WHERE installation_id = $1 AND ((record_type = 'companies' AND record_id = $2) OR data->'parent' = jsonb_build_object('type', 'companies', 'id', $2::int))
        GROUP BY 1, 2 ORDER BY 1, 2`,
      [site.id, company.id],
    );
    expect(events.map((e) => [e.record_type, e.kind, Number(e.n)])).toEqual([
      ['companies', 'created', 1],
      ['companies', 'linked', 1],
      ['domains', 'created', 2],
      ['phones', 'created', 1],
      ['timelogsettings', 'created', 1],
    ]);
  });

  it('updates a company and its relations in one exchange', async () => {
    const made = await api('/v2/companies.json', {
      key,
      method: 'POST',
      body: { company: { name: `Upd ${Date.now()}`, domains: [{ name: `u-${Date.now()}.example.com` }] } },
    });
    const company = made.body.company;
    const customer = await newCustomer(site, `upd-${Date.now()}@example.com`);
    const { answer, trips } = await tripsOf(`/v2/companies/${company.id}.json`, {
      method: 'PATCH',
      body: {
        company: {
          industry: 'Shipping',
          domains: [{ id: company.domains[0].id, delete: true }, { name: `v-${Date.now()}.example.com` }],
          customers: [{ id: customer }],
        },
      },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(trips).toBe(1);
    expect(answer.body.company.industry).toBe('Shipping');
    expect(answer.body.company.domains).toHaveLength(1);
    expect(answer.body.included.domains.map((d: { name: string }) => d.name)).toEqual([expect.stringMatching(/^v-/)]);
    const [changed] = await rows(
      `SELECT data FROM events WHERE installation_id = $1 AND record_type = 'companies' AND record_id = $2 AND kind = 'updated'`,
      [site.id, company.id],
    );
    expect(changed!.data).toMatchObject({ industry: { after: 'Shipping' } });
  });

  it("refuses another installation's customer, a child that is not the company's, and an unlink of what is not linked, in the same exchange, writing nothing", async () => {
    const foreign = await newCustomer(other, `foreign-${Date.now()}@example.com`);
    const name = `Refused ${Date.now()}`;
    const refusedCreate = await tripsOf('/v2/companies.json', {
      method: 'POST',
      body: { company: { name, domains: [{ name: `r-${Date.now()}.example.com` }], customers: [{ id: foreign }] } },
    });
    expect(refusedCreate.answer.status).toBe(400);
    expect(refusedCreate.answer.body.errors).toEqual([
      { code: 'invalid', source: 'company.customers[0].id', detail: `no customers ${foreign} here` },
    ]);
    expect(refusedCreate.trips).toBe(1);
    expect(await rows(`SELECT id FROM companies WHERE installation_id = $1 AND name = $2`, [site.id, name])).toEqual(
      [],
    );
    expect(
      await rows(
        `SELECT id FROM events WHERE installation_id = $1 AND record_type = 'companies' AND data->>'name' = $2`,
        [site.id, name],
      ),
    ).toEqual([]);

    const made = await api('/v2/companies.json', {
      key,
      method: 'POST',
      body: { company: { name: `Kept ${Date.now()}` } },
    });
    const id = made.body.company.id as number;
    const strangers = await api('/v2/companies.json', {
      key,
      method: 'POST',
      body: { company: { name: `Other ${Date.now()}`, domains: [{ name: `o-${Date.now()}.example.com` }] } },
    });
    const notOurs = strangers.body.company.domains[0].id as number;
    const mine = await newCustomer(site, `mine-${Date.now()}@example.com`);
    for (const [body, source, detail] of [
      [
        { industry: 'Changed', domains: [{ id: notOurs, name: 'x.example.com' }] },
        'company.domains[0].id',
        `no domains ${notOurs} here`,
      ],
      [
        { industry: 'Changed', customers: [{ id: mine, delete: true }] },
        'company.customers[0].id',
        `customers ${mine} is not linked, so it cannot be removed`,
      ],
    ] as const) {
      const refused = await tripsOf(`/v2/companies/${id}.json`, { method: 'PATCH', body: { company: body } });
      expect(refused.answer.status, refused.answer.text).toBe(400);
      expect(refused.answer.body.errors).toEqual([{ code: 'invalid', source, detail }]);
    }
    const [kept] = await rows<{ industry: string | null }>(`SELECT industry FROM companies WHERE id = $1`, [id]);
    expect(kept!.industry).not.toBe('Changed');
  });

  it("answers 404 for another installation's company and one that never was, in one exchange, changing nothing", async () => {
    const theirs = await api('/v2/companies.json', {
      key: other.users.agent.apiKey,
      method: 'POST',
      body: { company: { name: `Theirs ${Date.now()}` } },
    });
    for (const id of [theirs.body.company.id as number, 987654321]) {
      const { answer, trips } = await tripsOf(`/v2/companies/${id}.json`, {
        method: 'PATCH',
        body: { company: { industry: 'Taken' } },
      });
      expect(answer.status).toBe(404);
      expect(answer.body.errors).toEqual([{ code: 'notFound', source: 'id', detail: `company ${id} not found` }]);
      expect(trips).toBe(1);
    }
    const [theirsNow] = await rows<{ industry: string | null }>(`SELECT industry FROM companies WHERE id = $1`, [
      theirs.body.company.id,
    ]);
    expect(theirsNow!.industry).toBeNull();
  });

  it('answers a duplicate name as the 409 its constraint names, writing nothing', async () => {
    const name = `Twice ${Date.now()}`;
    await api('/v2/companies.json', { key, method: 'POST', body: { company: { name } } });
    const { answer } = await tripsOf('/v2/companies.json', {
      method: 'POST',
      body: { company: { name, domains: [{ name: `t-${Date.now()}.example.com` }] } },
    });
    expect(answer.status).toBe(409);
    expect(answer.body.errors).toEqual([
      { code: 'conflict', source: 'company.name', detail: 'a company with this name already exists' },
    ]);
    expect(
      await rows(`SELECT id FROM companies WHERE installation_id = $1 AND name = $2`, [site.id, name]),
    ).toHaveLength(1);
  });
});

describe('a customer in one round trip', () => {
  it('creates a customer with contacts, joined to the company of its domain, in one exchange', async () => {
    const domain = `joined-${Date.now()}.example.com`;
    const company = await api('/v2/companies.json', {
      key,
      method: 'POST',
      body: { company: { name: `Joined ${Date.now()}`, kind: 'company', domains: [{ name: domain }] } },
    });
    expect(company.status, company.text).toBe(201);
    const { answer, trips } = await tripsOf('/v2/customers.json', {
      method: 'POST',
      query: { includes: 'contacts,companies' },
      body: { customer: { firstName: 'Ada', email: `ada@${domain}`, contacts: [{ type: 'twitter', value: '@ada' }] } },
    });
    expect(answer.status, answer.text).toBe(201);
    expect(trips).toBe(1);
    const customer = answer.body.customer;
    expect(customer.email).toBe(`ada@${domain}`);
    expect(
      answer.body.included.contacts
        .map((c: { type: string; value: string; isMain: boolean }) => [c.type, c.value, c.isMain])
        .sort(),
    ).toEqual([
      ['email', `ada@${domain}`, true],
      ['twitter', '@ada', true],
    ]);
    const [link] = await rows(`SELECT company_id FROM company_customers WHERE customer_id = $1`, [customer.id]);
    expect(link).toEqual({ company_id: company.body.company.id });

    const renamed = await tripsOf(`/v2/customers/${customer.id}.json`, {
      method: 'PATCH',
      body: { customer: { firstName: 'Ada L.' } },
    });
    expect(renamed.answer.status, renamed.answer.text).toBe(200);
    expect(renamed.answer.body.customer.firstName).toBe('Ada L.');
    expect(renamed.trips).toBe(1);

    // a new address (still the interactive write: an update's contacts are checked against the stored ones); the old address stays a contact, not main
    const moved = await tripsOf(`/v2/customers/${customer.id}.json`, {
      method: 'PATCH',
      query: { includes: 'contacts' },
      body: { customer: { email: `ada.l@${domain}` } },
    });
    expect(moved.answer.status, moved.answer.text).toBe(200);
    expect(moved.answer.body.customer.email).toBe(`ada.l@${domain}`);
    expect(
      moved.answer.body.included.contacts
        .filter((c: { type: string }) => c.type === 'email')
        .map((c: { value: string; isMain: boolean }) => [c.value, c.isMain])
        .sort(),
    ).toEqual([
      [`ada.l@${domain}`, true],
      [`ada@${domain}`, false],
    ]);
    // the address it has already, sent back as read: no change
    const same = await tripsOf(`/v2/customers/${customer.id}.json`, {
      method: 'PATCH',
      body: { customer: { email: `ADA.L@${domain}` } },
    });
    expect(same.answer.status, same.answer.text).toBe(200);
    expect(same.answer.body.customer.email).toBe(`ada.l@${domain}`);
  });

  it('refuses an address another customer holds (409 naming the holder) and a customer without one (400), in one exchange, writing nothing', async () => {
    const email = `held-${Date.now()}@example.com`;
    const holder = await newCustomer(site, email);
    const before = await rows(`SELECT count(*)::int AS n FROM customers WHERE installation_id = $1`, [site.id]);
    const twice = await tripsOf('/v2/customers.json', {
      method: 'POST',
      body: { customer: { firstName: 'Second', contacts: [{ type: 'email', value: email.toUpperCase() }] } },
    });
    expect(twice.answer.status, twice.answer.text).toBe(409);
    expect(twice.answer.body.errors[0]).toMatchObject({ code: 'conflict', source: 'customer.contacts' });
    expect(twice.trips).toBe(1);
    const none = await tripsOf('/v2/customers.json', {
      method: 'POST',
      body: { customer: { firstName: 'Nobody', contacts: [{ type: 'twitter', value: '@nobody' }] } },
    });
    expect(none.answer.status).toBe(400);
    expect(none.answer.body.errors).toEqual([
      {
        code: 'invalid',
        source: 'customer.email',
        detail: 'a customer needs an email address: send `email` or an email contact',
      },
    ]);
    expect(await rows(`SELECT count(*)::int AS n FROM customers WHERE installation_id = $1`, [site.id])).toEqual(
      before,
    );
    expect(holder).toBeGreaterThan(0);
  });
});

describe('a create whose server-set values need no database', () => {
  it('makes a contact form, its public token set by the server, in one exchange', async () => {
    const admin = site.users.admin.apiKey;
    await api('/v2/contactforms.json', { key: admin });
    const requestId = `trip-${Math.random().toString(36).slice(2)}`;
    const made = await api('/v2/contactforms.json', {
      key: admin,
      method: 'POST',
      body: { contactform: { name: `Form ${Date.now()}` } },
      headers: { 'x-request-id': requestId },
    });
    expect(made.status, made.text).toBe(201);
    const [line] = await awaitLogLines({ requestId });
    expect(line!.dbRoundTrips).toBe(1);
    const [stored] = await rows<{ token: string }>(`SELECT token FROM contact_forms WHERE id = $1`, [
      made.body.contactform.id,
    ]);
    expect(stored!.token).toMatch(/^\S{16,}$/);
  });
});

describe('a delete of a record others use, in one round trip', () => {
  it('refuses while in use (409 counting the uses) and moves them to replaceWith, each in one exchange', async () => {
    const admin = site.users.admin.apiKey;
    const made = await api('/v2/ticketstatuses.json', {
      key: admin,
      method: 'POST',
      body: { ticketstatus: { name: `Parked ${Date.now()}`, color: '#AA00FF' } },
    });
    expect(made.status, made.text).toBe(201);
    const status = made.body.ticketstatus.id as number;
    const [inbox] = await rows<{ id: number }>(
      "UPDATE inboxes SET ticket_status_id = $1 WHERE installation_id = $2 AND name = 'Support' RETURNING id",
      [status, site.id],
    );
    const counted = async (query: Record<string, string>) => {
      await api('/v2/inboxes.json', { key: admin });
      const requestId = `trip-${Math.random().toString(36).slice(2)}`;
      const answer = await api(`/v2/ticketstatuses/${status}.json`, {
        key: admin,
        method: 'DELETE',
        query,
        headers: { 'x-request-id': requestId },
      });
      return { answer, trips: (await awaitLogLines({ requestId }))[0]!.dbRoundTrips as number };
    };
    const refused = await counted({});
    expect(refused.answer.status).toBe(409);
    expect(refused.answer.body.errors).toEqual([
      {
        code: 'conflict',
        source: 'replaceWith',
        detail: `ticketstatus ${status} is in use (1 inboxes); name another to move them to with replaceWith`,
      },
    ]);
    expect(refused.trips).toBe(1);
    const self = await counted({ replaceWith: String(status) });
    expect(self.answer.status).toBe(400);
    expect(self.trips).toBe(1);
    expect(await rows('SELECT state FROM ticket_statuses WHERE id = $1', [status])).toEqual([{ state: 'active' }]);
    const moved = await counted({ replaceWith: '3' });
    expect(moved.answer.status, moved.answer.text).toBe(204);
    expect(moved.trips).toBe(1);
    expect(await rows('SELECT ticket_status_id FROM inboxes WHERE id = $1', [inbox!.id])).toEqual([
      { ticket_status_id: 3 },
    ]);
    expect(await rows('SELECT state FROM ticket_statuses WHERE id = $1', [status])).toEqual([{ state: 'deleted' }]);
  });
});
