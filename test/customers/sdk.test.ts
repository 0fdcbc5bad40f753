// The platform's official client (Teamwork/desksdkgo) against its Customers service, with the
// bodies it sends: create with the whole CustomerResponse (id 0, type null, contacts under
// `included.contacts` as Contact records), get with includes=all, list with a FilterBuilder
// filter on `contacts.value` and paging, update with PUT sending back what it read. Every
// property its Customer type decodes as `int` must be a JSON integer, and `extraData` a string.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation } from '../support/db';
import { SDK_HEADERS, SDK_INCLUDED } from '../support/sdk';

let site: SeededInstallation;
let key: string;

/** A Customer as the SDK marshals it: pointers with omitempty left out, the rest null. */
const sdkCustomer = {
  id: 0,
  type: null,
  firstName: 'Sdk',
  lastName: 'Customer',
  organization: 'Sdk Org',
  extraData: 'vip=true',
  jobTitle: null,
  contacts: null,
  customerwelcomeemails: null,
  trusted: true,
};

function expectCustomerTypes(customer: Record<string, any>) {
  for (const name of ['id', 'numTickets']) expect(Number.isInteger(customer[name]), name).toBe(true);
  for (const name of ['trusted', 'verifiedEmail', 'welcomeEmailSent'])
    expect(typeof customer[name], name).toBe('boolean');
  for (const name of ['firstName', 'lastName', 'email', 'extraData'])
    expect(typeof customer[name], name).toBe('string');
  for (const ref of customer.contacts ?? []) expect(ref).toEqual({ id: expect.any(Number), type: 'contacts' });
}

beforeAll(async () => {
  site = await newInstallation('sdk-customers');
  key = site.users.agent.apiKey;
});

describe('the SDK on /v2/customers.json', () => {
  let read: any;

  it('creates with the whole response type, the contacts under included.contacts', async () => {
    const included = {
      ...SDK_INCLUDED,
      contacts: [
        { id: 0, type: 'email', value: 'sdk@customer.test', isMain: true },
        { id: 0, type: 'twitter', value: '@sdkcustomer' },
      ],
    };
    const response = await api('/v2/customers.json', {
      method: 'POST',
      key,
      headers: SDK_HEADERS,
      body: { customer: sdkCustomer, included },
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.customer).toMatchObject({
      firstName: 'Sdk',
      email: 'sdk@customer.test',
      extraData: 'vip=true',
      trusted: true,
      addMethod: 'api',
    });
    expectCustomerTypes(response.body.customer);
  });

  it('gets with includes=all: contacts, companies and users included', async () => {
    const list = await api('/v2/customers.json', {
      key,
      headers: SDK_HEADERS,
      query: { filter: { 'contacts.value': { $in: ['@sdkcustomer'] } }, page: 1, pageSize: 50 },
    });
    expect(list.status, list.text).toBe(200);
    expect(list.body.customers).toHaveLength(1);
    expect(list.body.pagination).toEqual({ records: 1, pageSize: 50, pages: 1, page: 1, hasMorePages: false });
    expect(list.body.meta.page).toMatchObject({ count: 1, pageSize: 50, pageOffset: 0, pages: 1, hasMore: false });
    const response = await api(`/v2/customers/${list.body.customers[0].id}.json`, {
      key,
      headers: SDK_HEADERS,
      query: { includes: 'all' },
    });
    expect(response.status, response.text).toBe(200);
    read = response.body;
    expectCustomerTypes(read.customer);
    expect(read.customer.contacts).toHaveLength(2);
    expect(read.included.contacts).toEqual([
      expect.objectContaining({ type: 'email', value: 'sdk@customer.test', isMain: true }),
      expect.objectContaining({ type: 'twitter', value: '@sdkcustomer', isMain: true }),
    ]);
    expect(read.included.companies).toEqual([]);
    expect(read.included.users).toEqual([expect.objectContaining({ id: site.users.agent.id, type: 'users' })]);
  });

  it('updates with PUT, sending back what it read (included records and all) with one change', async () => {
    const body = {
      customer: { ...read.customer, jobTitle: 'Engineer' },
      included: { ...SDK_INCLUDED, ...read.included },
    };
    const response = await api(`/v2/customers/${read.customer.id}.json`, {
      method: 'PUT',
      key,
      headers: SDK_HEADERS,
      body,
      query: { includes: 'contacts' },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.customer).toMatchObject({ jobTitle: 'Engineer', email: 'sdk@customer.test' });
    const contact = ({ id, type, value, isMain }: any) => ({ id, type, value, isMain });
    expect(response.body.included.contacts.map(contact)).toEqual(read.included.contacts.map(contact));
  });

  it('changes the email with PUT, sending back the contacts it read (the old main among them)', async () => {
    const body = {
      customer: { ...read.customer, email: 'sdk-new@customer.test' },
      included: { ...SDK_INCLUDED, ...read.included },
    };
    const response = await api(`/v2/customers/${read.customer.id}.json`, {
      method: 'PUT',
      key,
      headers: SDK_HEADERS,
      body,
      query: { includes: 'contacts' },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.customer.email).toBe('sdk-new@customer.test');
    const emails = response.body.included.contacts
      .filter((c: any) => c.type === 'email')
      .map(({ value, isMain }: any) => ({ value, isMain }));
    expect(emails).toEqual([
      { value: 'sdk@customer.test', isMain: false },
      { value: 'sdk-new@customer.test', isMain: true },
    ]);
  });
});
