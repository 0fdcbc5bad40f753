// Bad input to customers: each request gets the right 4xx naming the culprit, and the database
// (customers, their contacts, company links and the events) is left exactly as it was.
import { beforeAll, describe, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { refusals } from '../support/refusals';

let site: SeededInstallation;
let other: SeededInstallation;
const ids = { mine: 0, theirs: 0, myContact: 0, theirContact: 0, otherCustomersContact: 0, theirCompany: 0 };

async function snapshot() {
  const installations = [site.id, other.id];
  return {
    customers: await rows('SELECT to_jsonb(t) AS row FROM customers t WHERE installation_id = ANY($1) ORDER BY id', [
      installations,
    ]),
    contacts: await rows(
      'SELECT to_jsonb(t) AS row FROM customer_contacts t WHERE installation_id = ANY($1) ORDER BY id',
      [installations],
    ),
    links: await rows(
      'SELECT company_id, customer_id FROM company_customers WHERE installation_id = ANY($1) ORDER BY 1, 2',
      [installations],
    ),
    events: await rows('SELECT count(*)::int AS n FROM events WHERE installation_id = ANY($1)', [installations]),
  };
}

const refused = refusals(snapshot, () => site.users.agent.apiKey);
const list = '/v2/customers.json';
const one = (id: number) => `/v2/customers/${id}.json`;

beforeAll(async () => {
  site = await newInstallation('customers-bad');
  other = await newInstallation('customers-bad-other');
  const mine = await api(list, {
    method: 'POST',
    key: site.users.agent.apiKey,
    body: { email: 'mine@bad.test' },
    query: { includes: 'contacts' },
  });
  const second = await api(list, {
    method: 'POST',
    key: site.users.agent.apiKey,
    body: { email: 'second@bad.test' },
    query: { includes: 'contacts' },
  });
  const theirs = await api(list, {
    method: 'POST',
    key: other.users.agent.apiKey,
    body: { email: 'theirs@bad.test' },
    query: { includes: 'contacts' },
  });
  ids.mine = mine.body.customer.id;
  ids.myContact = mine.body.included.contacts[0].id;
  ids.otherCustomersContact = second.body.included.contacts[0].id;
  ids.theirs = theirs.body.customer.id;
  ids.theirContact = theirs.body.included.contacts[0].id;
  ids.theirCompany = (
    await api('/v2/companies.json', { method: 'POST', key: other.users.agent.apiKey, body: { name: 'Theirs' } })
  ).body.company.id;
});

describe('/v2/customers.json', () => {
  it('refuses malformed, non-object and deeply nested JSON', async () => {
    await refused(list, { method: 'POST', body: '{"email": ' }, 400);
    await refused(list, { method: 'POST', body: '[1, 2]' }, 400);
    await refused(list, { method: 'POST', body: 'null' }, 400);
    await refused(list, { method: 'POST', body: '['.repeat(5_000) + ']'.repeat(5_000) }, 400);
    await refused(
      one(ids.mine),
      { method: 'PATCH', body: `{"customer": {"contacts": [${'{"a":'.repeat(2_000)}1${'}'.repeat(2_000)}]}}` },
      400,
    );
  });

  it('refuses wrong types, in the record and in its contacts (unknown properties beside them or not), naming each', async () => {
    await refused(
      list,
      { method: 'POST', body: { customer: { email: 'x@bad.test', trusted: 'yes' } } },
      400,
      'customer.trusted',
    );
    await refused(
      list,
      { method: 'POST', body: { customer: { email: 'x@bad.test', extraData: { plan: 'gold' } } } },
      400,
      'customer.extraData',
    );
    await refused(
      list,
      { method: 'POST', body: { customer: { email: 'x@bad.test', linkedinURL: 'javascript:alert(1)' } } },
      400,
      'customer.linkedinURL',
    );
    await refused(
      list,
      { method: 'POST', body: { customer: { email: 'x@bad.test', permission: 'everyone' } } },
      400,
      'customer.permission',
    );
    // unknown properties (ignored alone) beside a wrong value: the 400 names the wrong one
    await refused(
      list,
      { method: 'POST', body: { email: 'x@bad.test', nickname: 'X', permission: 'everyone' } },
      400,
      'customer.permission',
    );
    await refused(
      list,
      {
        method: 'POST',
        body: { email: 'x@bad.test', contacts: [{ value: 'y@bad.test', colour: 'red', isMain: 'yes' }] },
      },
      400,
      'customer.contacts[0].isMain',
    );
    await refused(
      list,
      { method: 'POST', body: { email: 'x@bad.test', contacts: { value: 'y@bad.test' } } },
      400,
      'customer.contacts',
    );
    await refused(
      list,
      { method: 'POST', body: { email: 'x@bad.test', contacts: [{ type: 'twitter', value: 'not a handle!' }] } },
      400,
      'customer.contacts[0].value',
    );
    await refused(
      list,
      { method: 'POST', body: { email: 'x@bad.test', contacts: [{ value: 'y@bad.test', delete: true }] } },
      400,
      'customer.contacts[0].delete',
    );
    await refused(
      list,
      {
        method: 'POST',
        body: { customer: { email: 'x@bad.test' }, included: { contacts: [{ id: 0, type: 'email', value: 42 }] } },
      },
      400,
      /^customer\.contacts\[0\]/,
    );
    await refused(
      one(ids.mine),
      { method: 'PUT', body: { customer: { firstName: ['Ada'] } } },
      400,
      'customer.firstName',
    );
  });

  it("refuses another customer's or installation's contact and another installation's company (400), changing nothing", async () => {
    await refused(
      one(ids.mine),
      { method: 'PATCH', body: { contacts: [{ id: ids.otherCustomersContact, delete: true }] } },
      400,
      'customer.contacts[0].id',
    );
    await refused(
      one(ids.mine),
      { method: 'PATCH', body: { contacts: [{ id: ids.theirContact, value: 'stolen@bad.test' }] } },
      400,
      'customer.contacts[0].id',
    );
    await refused(
      one(ids.mine),
      { method: 'PATCH', body: { companies: [{ id: ids.theirCompany }] } },
      400,
      'customer.companies[0].id',
    );
    await refused(
      list,
      { method: 'POST', body: { email: 'new@bad.test', companies: [{ id: ids.theirCompany }] } },
      400,
      'customer.companies[0].id',
    );
  });

  it('refuses unknown filter, orderBy, includes and fields names, a bad contacts.value operand, and a page too large', async () => {
    await refused(list, { query: { filter: { nickname: 'x' } } }, 400, 'filter.nickname');
    await refused(
      list,
      { query: { filter: { 'contacts.value': { $in: 'x@bad.test' } } } },
      400,
      'filter.contacts.value',
    );
    await refused(list, { query: { filter: { 'contacts.value': { $gt: 3 } } } }, 400, 'filter.contacts.value');
    await refused(list, { query: { orderBy: 'contacts.value' } }, 400, 'orderBy');
    await refused(list, { query: { includes: 'tickets' } }, 400, 'includes');
    await refused(list, { query: { fields: 'password' } }, 400, 'fields');
    await refused(list, { query: { pageSize: 1_000 } }, 400, 'pageSize');
  });

  it('refuses the email in a bulk update (each customer has its own), and a bulk write without a filter', async () => {
    await refused(
      '/v2/customers/update.json',
      { method: 'PATCH', query: { filter: { id: ids.mine } }, body: { customer: { email: 'all@bad.test' } } },
      400,
      'customer.email',
    );
    // every customer's mail turned to one address, by the email or by a main email contact: refused, as the single update's rules cannot hold for all at once
    const everyone = { email: { $contains: '@bad.test' } };
    await refused(
      '/v2/customers/update.json',
      { method: 'PATCH', query: { filter: everyone }, body: { customer: { email: 'catch@evil.test', trusted: true } } },
      400,
      'customer.email',
    );
    await refused(
      '/v2/customers/update.json',
      {
        method: 'PATCH',
        query: { filter: everyone },
        body: { customer: { contacts: [{ type: 'email', value: 'catch@evil.test', isMain: true }] } },
      },
      400,
      /contacts/,
    );
    await refused(
      '/v2/customers/update.json',
      { method: 'PATCH', body: { customer: { trusted: true } } },
      400,
      'filter',
    );
    await refused('/v2/customers/delete.json', { method: 'DELETE' }, 400, 'filter');
  });

  it("answers another installation's customer, and one that never was, as 404", async () => {
    for (const id of [ids.theirs, 2_000_000_000]) {
      await refused(one(id), {}, 404, 'id');
      await refused(one(id), { method: 'PATCH', body: { firstName: 'X' } }, 404, 'id');
      await refused(one(id), { method: 'DELETE' }, 404, 'id');
      await refused(
        `/v2/customers/${id}/merge.json`,
        { method: 'POST', body: { customer: { id: ids.mine } } },
        404,
        'id',
      );
    }
    await refused(one(0), {}, 400, 'id');
  });

  it('refuses a collaborator (403) and a missing or wrong key (401)', async () => {
    const collaborator = site.users.collaborator.apiKey;
    await refused(list, { method: 'POST', body: { email: 'c@bad.test' }, key: collaborator }, 403);
    await refused(one(ids.mine), { method: 'PATCH', body: { firstName: 'C' }, key: collaborator }, 403);
    await refused(one(ids.mine), { method: 'DELETE', key: collaborator }, 403);
    await refused(list, { method: 'POST', body: { email: 'c@bad.test' }, key: null }, 401);
    await refused(list, { key: 'hd_not-a-key' }, 401);
  });
});
