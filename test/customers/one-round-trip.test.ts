// A customer's merge is one exchange with the database, and its update that sends `email` or
// `contacts` two: the stored address and contacts read in one statement (an address it has
// becomes main, a main contact of a type loses the mark to the one sent, each value checked as
// the contact it will be), then one batch; a refusal answers as the interactive write did,
// writing nothing (docs/connection-strategy.md).
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { eventsSince, lastEventId, summary } from '../support/events';
import { withRoundTrips } from '../support/round-trips';

let site: SeededInstallation;
let key: string;

beforeAll(async () => {
  site = await newInstallation('customers-trips');
  key = site.users.agent.apiKey;
});

async function newCustomer(email: string, contacts: unknown[] = []): Promise<number> {
  const made = await api('/v2/customers.json', { method: 'POST', key, body: { customer: { email, contacts } } });
  expect(made.status, made.text).toBe(201);
  return made.body.customer.id as number;
}

/** The update's round trips, the caller's credential looked up just before (remembered: the count is the request alone). */
async function update(id: number, customer: unknown) {
  await api('/v2/customers.json', { key });
  return withRoundTrips(`/v2/customers/${id}.json`, {
    method: 'PATCH',
    key,
    body: { customer },
    query: { includes: 'contacts' },
  });
}

const contactsOf = (id: number) =>
  rows<{ type: string; value: string; isMain: boolean }>(
    `SELECT type, value, is_main AS "isMain" FROM customer_contacts WHERE customer_id = $1 AND state = 'active' ORDER BY type, value`,
    [id],
  );

describe("a customer's update with its contacts", () => {
  it('a new email: made main, the old main unmarked, in two exchanges with every event', async () => {
    const id = await newCustomer('first@trips.test');
    const mark = await lastEventId(site.id);
    const { answer, trips } = await update(id, { email: 'second@trips.test' });
    expect(answer.status, answer.text).toBe(200);
    expect(trips).toBe(2);
    expect(answer.body.customer.email).toBe('second@trips.test');
    expect(await contactsOf(id)).toEqual([
      { type: 'email', value: 'first@trips.test', isMain: false },
      { type: 'email', value: 'second@trips.test', isMain: true },
    ]);
    expect(summary(await eventsSince(site.id, mark)).sort()).toEqual([
      'customercontacts:created',
      'customercontacts:updated',
      'customers:updated',
    ]);
  });

  it('contacts added, changed and removed, a twitter handle made main over the one it had: two exchanges', async () => {
    const id = await newCustomer('contacts@trips.test', [
      { type: 'twitter', value: '@before', isMain: true },
      { type: 'email', value: 'spare@trips.test' },
    ]);
    const [spare] = await rows<{ id: number }>(
      `SELECT id FROM customer_contacts WHERE customer_id = $1 AND value = 'spare@trips.test'`,
      [id],
    );
    const { answer, trips } = await update(id, {
      contacts: [
        { type: 'twitter', value: '@after', isMain: true },
        { id: spare!.id, delete: true },
        { type: 'linkedin', value: 'https://example.com/in/trips' },
      ],
    });
    expect(answer.status, answer.text).toBe(200);
    expect(trips).toBe(2);
    expect(await contactsOf(id)).toEqual([
      { type: 'email', value: 'contacts@trips.test', isMain: true },
      // the only one of its type: main, as every type has one
      { type: 'linkedin', value: 'https://example.com/in/trips', isMain: true },
      { type: 'twitter', value: '@after', isMain: true },
      { type: 'twitter', value: '@before', isMain: false },
    ]);
  });

  it('the address it has, sent back as read, changes nothing: two exchanges, no event', async () => {
    const id = await newCustomer('same@trips.test');
    const mark = await lastEventId(site.id);
    const { answer, trips } = await update(id, { email: 'SAME@trips.test' });
    expect(answer.status, answer.text).toBe(200);
    expect(trips).toBe(2);
    expect(await eventsSince(site.id, mark)).toEqual([]);
  });

  it("refuses a stored contact changed to a value its type does not take, two mains of a type, another customer's contact, a value taken: nothing written", async () => {
    const id = await newCustomer('refused@trips.test', [{ type: 'twitter', value: '@refused' }]);
    const otherId = await newCustomer('other@trips.test');
    const [twitter] = await rows<{ id: number }>(
      `SELECT id FROM customer_contacts WHERE customer_id = $1 AND type = 'twitter'`,
      [id],
    );
    const [othersEmail] = await rows<{ id: number }>(`SELECT id FROM customer_contacts WHERE customer_id = $1`, [
      otherId,
    ]);
    const before = await contactsOf(id);
    const mark = await lastEventId(site.id);
    expectError(
      (await update(id, { contacts: [{ id: twitter!.id, value: 'not a handle' }] })).answer,
      400,
      'customer.contacts[0].value',
    );
    expectError(
      (
        await update(id, {
          contacts: [
            { type: 'email', value: 'a@trips.test', isMain: true },
            { type: 'email', value: 'b@trips.test', isMain: true },
          ],
        })
      ).answer,
      400,
      'customer.contacts',
    );
    expectError(
      (await update(id, { contacts: [{ id: othersEmail!.id, value: 'mine@trips.test' }] })).answer,
      400,
      'customer.contacts[0].id',
    );
    expectError(
      (await update(id, { contacts: [{ type: 'email', value: 'other@trips.test' }] })).answer,
      409,
      'customer.contacts',
    );
    expectError((await update(2_000_000_000, { email: 'nobody@trips.test' })).answer, 404, 'id');
    expect(await contactsOf(id)).toEqual(before);
    expect(await eventsSince(site.id, mark)).toEqual([]);
  });
});

describe('a merge', () => {
  it('folds the other customer in, its contacts, tickets and entries moved, in one exchange; refused in one, nothing written', async () => {
    const keep = await newCustomer('keep-merge@trips.test');
    const fold = await newCustomer('fold-merge@trips.test');
    const inbox = (await api('/v2/inboxes.json', { key })).body.inboxes[0].id;
    const ticket = (
      await api('/v2/tickets.json', {
        method: 'POST',
        key,
        body: { subject: 'Folded', inbox, customer: { id: fold }, message: 'mine' },
      })
    ).body.ticket.id as number;
    await api('/v2/customers.json', { key });
    const merged = await withRoundTrips(`/v2/customers/${keep}/merge.json`, {
      method: 'POST',
      key,
      body: { customer: { id: fold } },
    });
    expect(merged.answer.status, merged.answer.text).toBe(200);
    expect(merged.trips).toBe(1);
    expect(await contactsOf(keep)).toEqual([
      { type: 'email', value: 'fold-merge@trips.test', isMain: false },
      { type: 'email', value: 'keep-merge@trips.test', isMain: true },
    ]);
    expect(await rows('SELECT customer_id AS "customerId" FROM tickets WHERE id = $1', [ticket])).toEqual([
      { customerId: keep },
    ]);
    const mark = await lastEventId(site.id);
    const again = await withRoundTrips(`/v2/customers/${keep}/merge.json`, {
      method: 'POST',
      key,
      body: { customer: { id: fold } },
    });
    expectError(again.answer, 400, 'customer.id');
    expect(again.trips).toBe(1);
    expectError(
      (
        await withRoundTrips(`/v2/customers/2000000000/merge.json`, {
          method: 'POST',
          key,
          body: { customer: { id: keep } },
        })
      ).answer,
      404,
      'id',
    );
    expect(await eventsSince(site.id, mark)).toEqual([]);
  });
});

describe('a bulk update of customers', () => {
  it('changes the selected customers in one exchange, with their events, and a dry run in one changing nothing', async () => {
    const a = await newCustomer(`bulk-a-${Date.now()}@trips.test`);
    const b = await newCustomer(`bulk-b-${Date.now()}@trips.test`);
    const bulk = (body: Record<string, unknown>) =>
      withRoundTrips('/v2/customers/update.json', { method: 'PATCH', key, body });
    const dry = await bulk({
      customer: { trusted: true, jobTitle: 'Buyer' },
      filter_args: { filter: { id: { $in: [a, b] } }, bulkDryExecute: true },
    });
    expect(dry.answer.status, dry.answer.text).toBe(200);
    expect(dry.answer.body).toEqual({ affected: 2, ids: [a, b], jobId: null, dryRun: true });
    expect(dry.trips).toBe(1);
    expect(await rows('SELECT trusted, job_title FROM customers WHERE id = ANY($1) ORDER BY id', [[a, b]])).toEqual([
      { trusted: false, job_title: null },
      { trusted: false, job_title: null },
    ]);
    const changed = await bulk({
      customer: { trusted: true, jobTitle: 'Buyer' },
      filter_args: { filter: { id: { $in: [a, b] } } },
    });
    expect(changed.answer.status, changed.answer.text).toBe(200);
    expect(changed.answer.body).toEqual({ affected: 2, ids: [a, b], jobId: null, dryRun: false });
    expect(changed.trips).toBe(1);
    expect(await rows('SELECT trusted, job_title FROM customers WHERE id = ANY($1) ORDER BY id', [[a, b]])).toEqual([
      { trusted: true, job_title: 'Buyer' },
      { trusted: true, job_title: 'Buyer' },
    ]);
    expect(
      await rows(
        `SELECT record_id FROM events WHERE record_type = 'customers' AND record_id = ANY($1) AND kind = 'updated' ORDER BY record_id`,
        [[a, b]],
      ),
    ).toEqual([{ record_id: a }, { record_id: b }]);
  });
});
