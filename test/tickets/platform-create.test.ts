// Issue 32: a ticket created as the platform's client sends it: the customer it read (`id` and
// `email` both), the agent as its digits, and UI properties it has no use for here (`showCC`).
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';

let site: SeededInstallation;
let inbox: number;
let customer: { id: number; email: string };

beforeAll(async () => {
  site = await newInstallation('platform-create');
  inbox = (await api('/v2/inboxes.json', { key: site.users.admin.apiKey })).body.inboxes[0].id;
  const email = `ann.${Date.now()}@customer.test`;
  const made = await api('/v2/customers.json', {
    method: 'POST',
    key: site.users.admin.apiKey,
    body: { customer: { firstName: 'Ann', email } },
  });
  expect(made.status, made.text).toBe(201);
  customer = { id: made.body.customer.id, email };
});

describe('POST /v2/tickets.json as the platform sends it', () => {
  it('takes the customer by id and email naming the same one, the agent as digits, and ignores showCC (named)', async () => {
    const sent = await api('/v2/tickets.json', {
      method: 'POST',
      key: site.users.admin.apiKey,
      body: {
        ticket: {
          subject: 'From the SDK',
          inbox: { id: inbox },
          customer: { id: customer.id, email: customer.email.toUpperCase() },
          agent: { id: String(site.users.agent.id) },
          showCC: true,
          message: 'Hello',
          notifyCustomer: false,
        },
      },
    });
    expect(sent.status, sent.text).toBe(201);
    expect(sent.body.ticket).toMatchObject({ customer: { id: customer.id }, agent: { id: site.users.agent.id } });
    expect(sent.headers.get('x-ignored-properties')).toBe('ticket.showCC');
    const [row] = await rows<{ customer_id: number; agent_id: number }>(
      'SELECT customer_id, agent_id FROM tickets WHERE id = $1',
      [sent.body.ticket.id],
    );
    expect(row).toEqual({ customer_id: customer.id, agent_id: site.users.agent.id });
  });

  it("refuses an email that is not that customer's, and an id not here, writing nothing", async () => {
    const before = await rows('SELECT count(*)::int AS n FROM tickets WHERE installation_id = $1', [site.id]);
    const other = await newInstallation('platform-create-other');
    for (const [ticketCustomer, source] of [
      [{ id: customer.id, email: 'someone.else@customer.test' }, 'ticket.customer.email'],
      [{ id: 999_999, email: customer.email }, 'ticket.customer'],
    ] as const) {
      expectError(
        await api('/v2/tickets.json', {
          method: 'POST',
          key: site.users.admin.apiKey,
          body: { ticket: { subject: 'x', inbox, customer: ticketCustomer, message: 'x', notifyCustomer: false } },
        }),
        400,
        source,
      );
    }
    // another installation's customer by id, even with its own email
    const theirs = await api('/v2/customers.json', {
      method: 'POST',
      key: other.users.admin.apiKey,
      body: { customer: { email: `theirs.${Date.now()}@customer.test` } },
    });
    expectError(
      await api('/v2/tickets.json', {
        method: 'POST',
        key: site.users.admin.apiKey,
        body: {
          ticket: {
            subject: 'x',
            inbox,
            customer: { id: theirs.body.customer.id, email: theirs.body.customer.email },
            message: 'x',
            notifyCustomer: false,
          },
        },
      }),
      400,
      'ticket.customer',
    );
    expect(await rows('SELECT count(*)::int AS n FROM tickets WHERE installation_id = $1', [site.id])).toEqual(before);
  });
});
