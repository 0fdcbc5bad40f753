// The platform's official client (Teamwork/desksdkgo) against its Tickets service: create with the
// whole TicketResponse (its `type` is the ticket type, `suggestions` always `{}`), get with
// includes=all, list with a FilterBuilder filter and paging, update with PATCH sending back what
// it read. `messageCount` is `int` in its Ticket type.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation } from '../support/db';
import { SDK_HEADERS, SDK_INCLUDED } from '../support/sdk';

let site: SeededInstallation;
let key: string;
let inbox: number;
let customer: number;

beforeAll(async () => {
  site = await newInstallation('sdk-tickets');
  key = site.users.agent.apiKey;
  inbox = (await api('/v2/inboxes.json', { key })).body.inboxes[0].id;
  customer = (await api('/v2/customers.json', { method: 'POST', key, body: { email: 'sdk@tickets.test' } })).body
    .customer.id;
});

function expectTicketTypes(ticket: Record<string, any>) {
  for (const name of ['id', 'messageCount']) expect(Number.isInteger(ticket[name]), name).toBe(true);
  for (const name of ['inbox', 'customer', 'status', 'type'])
    expect(ticket[name], name).toEqual({ id: expect.any(Number), type: expect.any(String) });
  expect(typeof ticket.previewText).toBe('string');
}

describe('the SDK on /v2/tickets.json', () => {
  let read: any;

  it('creates with the whole response type sent', async () => {
    const ticket = {
      id: 0,
      subject: 'SDK ticket',
      message: 'Sent by the SDK',
      inbox: { id: inbox, type: 'inboxes', meta: null },
      customer: { id: customer, type: 'customers', meta: null },
      cc: ['cc@tickets.test'],
      happinessSurveySentAt: null,
      spam_rules: null,
      suggestions: {},
    };
    const response = await api('/v2/tickets.json', {
      method: 'POST',
      key,
      headers: SDK_HEADERS,
      body: { ticket, included: SDK_INCLUDED },
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.ticket).toMatchObject({
      subject: 'SDK ticket',
      cc: ['cc@tickets.test'],
      messageCount: 1,
      previewText: 'Sent by the SDK',
    });
    expectTicketTypes(response.body.ticket);
  });

  it('lists with a FilterBuilder filter and paging, then gets with includes=all', async () => {
    const list = await api('/v2/tickets.json', {
      key,
      headers: SDK_HEADERS,
      query: { filter: { subject: { $eq: 'SDK ticket' }, 'statuses.id': { $in: [1] } }, page: 1, pageSize: 50 },
    });
    expect(list.status, list.text).toBe(200);
    expect(list.body.pagination).toEqual({ records: 1, pageSize: 50, pages: 1, page: 1, hasMorePages: false });
    const response = await api(`/v2/tickets/${list.body.tickets[0].id}.json`, {
      key,
      headers: SDK_HEADERS,
      query: { includes: 'all' },
    });
    expect(response.status, response.text).toBe(200);
    read = response.body;
    expectTicketTypes(read.ticket);
    expect(read.ticket.messages).toEqual([{ id: expect.any(Number), type: 'messages' }]);
    // the client's Message decodes `htmlBody` into its `message`
    expect(read.included.messages[0]).toMatchObject({
      message: 'Sent by the SDK',
      htmlBody: 'Sent by the SDK',
      threadType: 'message',
      ticket: { id: read.ticket.id, type: 'tickets' },
      cc: ['cc@tickets.test'],
      bcc: [],
    });
  });

  it('updates with PATCH, sending back what it read with a new status', async () => {
    const body = {
      ticket: {
        ...read.ticket,
        status: { id: 5, type: 'ticketstatuses', meta: null },
        spam_rules: null,
        suggestions: {},
      },
      included: { ...SDK_INCLUDED, ...read.included },
    };
    const response = await api(`/v2/tickets/${read.ticket.id}.json`, {
      method: 'PATCH',
      key,
      headers: SDK_HEADERS,
      body,
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.ticket.status).toEqual({ id: 5, type: 'ticketstatuses' });
    expectTicketTypes(response.body.ticket);
  });
});
