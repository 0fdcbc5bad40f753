// A ticket's custom field values: set with `customfields: [{id, meta: {value}}]`, checked per kind
// (each refusal a 400 naming `ticket.customfields[i]` that writes nothing), read with
// includes=customfields, an agent-required field blocking solved and closed on every status path,
// and the `customfields` filter of the ticket list and of search.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { drained, eventsSince, lastEventId, summary } from '../support/events';
import { awaitLogLines } from '../support/logs';

const SOLVED = 5;
const CLOSED = 6;

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;
let agent: string;
let inbox: number;
let secondInbox: number;
const f = {} as Record<
  'text' | 'textarea' | 'number' | 'date' | 'dropdown' | 'checkboxes' | 'off' | 'elsewhere',
  number
>;
const option = {} as Record<'gold' | 'silver' | 'mail' | 'chat' | 'phone', number>;

const field = async (body: Record<string, unknown>) => {
  const made = await api('/v2/customfields.json', {
    method: 'POST',
    key: admin,
    body: { customfield: body },
    query: { includes: 'options' },
  });
  expect(made.status, made.text).toBe(201);
  return made.body.customfield as { id: number; options?: { id: number }[] };
};
const optionIds = async (id: number) =>
  (
    await api('/v2/customfieldoptions.json', {
      key: admin,
      query: { filter: JSON.stringify({ customfield: id }), orderBy: 'displayOrder' },
    })
  ).body.customfieldoptions.map((o: { id: number }) => o.id) as number[];
const newTicket = async (extra: Record<string, unknown> = {}) => {
  const made = await api('/v2/tickets.json', {
    method: 'POST',
    key: admin,
    body: { ticket: { subject: 'Fields', inbox, customer: { email: 'fields@values.test' }, ...extra } },
  });
  expect(made.status, made.text).toBe(201);
  return made.body.ticket.id as number;
};
const patch = (id: number, ticket: Record<string, unknown>, key = admin) =>
  api(`/v2/tickets/${id}.json`, { method: 'PATCH', key, body: { ticket }, query: { includes: 'customfields' } });
const valuesOf = async (id: number) =>
  Object.fromEntries(
    (
      await rows<{ field: number; value: unknown }>(
        'SELECT custom_field_id AS field, value FROM ticket_custom_field_values WHERE ticket_id = $1',
        [id],
      )
    ).map((r) => [r.field, r.value]),
  );

beforeAll(async () => {
  site = await newInstallation('customfield-values');
  other = await newInstallation('customfield-values-other');
  admin = site.users.admin.apiKey;
  agent = site.users.agent.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: admin })).body.inboxes[0].id;
  secondInbox = (
    await api('/v2/inboxes.json', {
      method: 'POST',
      key: admin,
      body: { inbox: { name: 'Second', email: 'second@values.test' } },
    })
  ).body.inbox.id;
  f.text = (await field({ agentLabel: 'Serial', kind: 'text' })).id;
  f.textarea = (await field({ agentLabel: 'Notes', kind: 'textarea' })).id;
  f.number = (await field({ agentLabel: 'Seats', kind: 'number' })).id;
  f.date = (await field({ agentLabel: 'Renewal', kind: 'date' })).id;
  f.dropdown = (
    await field({
      agentLabel: 'Plan',
      kind: 'dropdown',
      options: [
        { name: 'Gold', displayOrder: 1 },
        { name: 'Silver', displayOrder: 2 },
      ],
    })
  ).id;
  f.checkboxes = (
    await field({
      agentLabel: 'Products',
      kind: 'checkboxes',
      options: [
        { name: 'Mail', displayOrder: 1 },
        { name: 'Chat', displayOrder: 2 },
        { name: 'Phone', displayOrder: 3 },
      ],
    })
  ).id;
  const plans = await optionIds(f.dropdown);
  const products = await optionIds(f.checkboxes);
  Object.assign(option, { gold: plans[0], silver: plans[1], mail: products[0], chat: products[1], phone: products[2] });
  f.off = (await field({ agentLabel: 'Retired', kind: 'text', enabled: false })).id;
  f.elsewhere = (await field({ agentLabel: 'Second only', kind: 'text', inboxes: [{ id: secondInbox }] })).id;
});

describe('values on a ticket', () => {
  it('are set on create in every kind, stored in their kind, and read with includes=customfields', async () => {
    const made = await api('/v2/tickets.json', {
      method: 'POST',
      key: admin,
      query: { includes: 'customfields' },
      body: {
        ticket: {
          subject: 'All kinds',
          inbox,
          customer: { email: 'kinds@values.test' },
          customfields: [
            { id: f.text, meta: { value: 'AB-12' } },
            { id: f.textarea, meta: { value: 'line one\nline two' } },
            { id: f.number, meta: { value: '12.5' } },
            { id: f.date, meta: { value: '2027-01-31' } },
            { id: f.dropdown, meta: { value: option.silver } },
            { id: f.checkboxes, meta: { value: [option.phone, option.mail, option.phone] } },
          ],
        },
      },
    });
    expect(made.status, made.text).toBe(201);
    const ticket = made.body.ticket;
    expect(ticket.customfields).toEqual([
      { id: f.text, type: 'customfields', meta: { value: 'AB-12' } },
      { id: f.textarea, type: 'customfields', meta: { value: 'line one\nline two' } },
      { id: f.number, type: 'customfields', meta: { value: 12.5 } },
      { id: f.date, type: 'customfields', meta: { value: '2027-01-31' } },
      { id: f.dropdown, type: 'customfields', meta: { value: option.silver } },
      { id: f.checkboxes, type: 'customfields', meta: { value: [option.mail, option.phone] } },
    ]);
    expect(made.body.included.customfields.map((c: { agentLabel: string }) => c.agentLabel)).toEqual([
      'Serial',
      'Notes',
      'Seats',
      'Renewal',
      'Plan',
      'Products',
    ]);
    expect(await valuesOf(ticket.id)).toEqual({
      [f.text]: 'AB-12',
      [f.textarea]: 'line one\nline two',
      [f.number]: 12.5,
      [f.date]: '2027-01-31',
      [f.dropdown]: option.silver,
      [f.checkboxes]: [option.mail, option.phone],
    });
    // the platform's name for the include reads them too; without it the ticket carries none
    const read = await api(`/v2/tickets/${ticket.id}.json`, { key: agent, query: { includes: 'customfields' } });
    expect(read.body.ticket.customfields).toEqual(ticket.customfields);
    expect((await api(`/v2/tickets/${ticket.id}.json`, { key: agent })).body.ticket.customfields).toBeUndefined();
  });

  it('change one at a time: others stay, null or delete clears, the same value again is no event', async () => {
    const id = await newTicket({
      customfields: [
        { id: f.text, meta: { value: 'one' } },
        { id: f.number, meta: { value: 3 } },
      ],
    });
    let mark = await lastEventId(site.id);
    const changed = await patch(id, { customfields: [{ id: f.number, meta: { value: 4 } }] });
    expect(changed.status, changed.text).toBe(200);
    expect(await valuesOf(id)).toEqual({ [f.text]: 'one', [f.number]: 4 });
    const events = await eventsSince(site.id, mark);
    expect(summary(events)).toEqual(['tickets:linked']);
    expect(events[0]!.data).toMatchObject({
      relation: 'customfields',
      record: { id: f.number, type: 'customfields' },
      meta: { value: 4 },
    });

    mark = await lastEventId(site.id);
    expect(
      (
        await patch(id, {
          customfields: [
            { id: f.number, meta: { value: 4 } },
            { id: f.text, meta: { value: 'one' } },
          ],
        })
      ).status,
    ).toBe(200);
    expect(summary(await eventsSince(site.id, mark)).filter((e) => e !== 'tickets:updated')).toEqual([]);

    expect(
      (
        await patch(id, {
          customfields: [
            { id: f.number, meta: { value: null } },
            { id: f.text, meta: { delete: true } },
            { id: f.date, meta: { value: '' } },
          ],
        })
      ).status,
    ).toBe(200);
    expect(await valuesOf(id)).toEqual({});
    expect(summary(await eventsSince(site.id, mark)).filter((e) => e !== 'tickets:updated')).toEqual([
      'tickets:unlinked',
      'tickets:unlinked',
    ]);
  });

  it('a value its field cannot take is a 400 naming the entry, and nothing is written', async () => {
    const id = await newTicket({ customfields: [{ id: f.text, meta: { value: 'kept' } }] });
    const foreignField = (
      await api('/v2/customfields.json', {
        method: 'POST',
        key: other.users.admin.apiKey,
        body: { customfield: { agentLabel: 'Theirs', kind: 'text' } },
      })
    ).body.customfield.id;
    const mark = await lastEventId(site.id);
    const refused = async (entry: Record<string, unknown>, source: string, detail?: RegExp) =>
      expectError(
        await patch(id, { subject: 'Changed', customfields: [{ id: f.textarea, meta: { value: 'new' } }, entry] }),
        400,
        source,
        detail,
      );
    await refused({ id: f.number, meta: { value: 'twelve' } }, 'ticket.customfields[1]', /not a number/);
    await refused({ id: f.number, meta: { value: '1e400' } }, 'ticket.customfields[1]', /not a number/);
    await refused({ id: f.date, meta: { value: '2026-02-30' } }, 'ticket.customfields[1]', /not a day/);
    await refused({ id: f.date, meta: { value: 20260101 } }, 'ticket.customfields[1]', /not a day/);
    await refused({ id: f.dropdown, meta: { value: option.mail } }, 'ticket.customfields[1]', /not an option/);
    await refused({ id: f.dropdown, meta: { value: [option.gold] } }, 'ticket.customfields[1]', /not an option/);
    await refused(
      { id: f.checkboxes, meta: { value: [option.mail, option.gold] } },
      'ticket.customfields[1]',
      /not an option/,
    );
    await refused({ id: f.text, meta: { value: 'x'.repeat(1001) } }, 'ticket.customfields[1]', /at most 1000/);
    await refused({ id: f.text, meta: { value: 12 } }, 'ticket.customfields[1]', /must be text/);
    await refused({ id: f.text, meta: { value: 'a\u0000b' } }, 'ticket.customfields[1].meta.value', /NUL/);
    await refused({ id: f.text }, 'ticket.customfields[1]', /meta\.value/);
    await refused({ id: f.off, meta: { value: 'x' } }, 'ticket.customfields[1]', /switched off/);
    await refused({ id: f.elsewhere, meta: { value: 'x' } }, 'ticket.customfields[1]', /not used in inbox/);
    await refused({ id: foreignField, meta: { value: 'x' } }, 'ticket.customfields[1].id', /no customfields/);
    await refused({ id: 2_000_000_000, meta: { value: 'x' } }, 'ticket.customfields[1].id', /no customfields/);
    await refused({ id: f.text, meta: { value: true } }, 'ticket.customfields[1].meta.value');
    await refused({ id: f.text, meta: { value: { nested: { deeper: ['x'] } } } }, 'ticket.customfields[1].meta.value');
    await refused({ id: 'twelve', meta: { value: 'x' } }, 'ticket.customfields[1].id');
    await refused({ id: f.textarea, meta: { delete: true } }, 'ticket.customfields[1].id', /again/);
    expectError(await patch(id, { customfields: { id: f.text } }), 400, 'ticket.customfields');
    expect(await eventsSince(site.id, mark)).toEqual([]);
    expect(await valuesOf(id)).toEqual({ [f.text]: 'kept' });
    expect((await api(`/v2/tickets/${id}.json`, { key: admin })).body.ticket.subject).toBe('Fields');
  });

  it('are written in two exchanges: the fields read, then one batch; a refusal after the read writes nothing', async () => {
    const counted = async (path: string, method: string, ticket: Record<string, unknown>) => {
      await drained(site.id);
      await api('/v2/inboxes.json', { key: admin });
      const requestId = `fields-${Math.random().toString(36).slice(2)}`;
      const answer = await api(path, { method, key: admin, body: { ticket }, headers: { 'x-request-id': requestId } });
      const [line] = await awaitLogLines({ requestId });
      return { answer, trips: line!.dbRoundTrips as number };
    };
    const created = await counted('/v2/tickets.json', 'POST', {
      subject: 'Counted',
      inbox,
      customer: { email: 'counted@values.test' },
      customfields: [
        { id: f.text, meta: { value: 'A-1' } },
        { id: f.dropdown, meta: { value: option.gold } },
      ],
    });
    expect(created.answer.status, created.answer.text).toBe(201);
    expect(created.trips).toBe(2);
    const id = created.answer.body.ticket.id as number;
    expect(await valuesOf(id)).toEqual({ [f.text]: 'A-1', [f.dropdown]: option.gold });
    const changed = await counted(`/v2/tickets/${id}.json`, 'PATCH', {
      customfields: [
        { id: f.text, meta: { value: null } },
        { id: f.number, meta: { value: '7' } },
      ],
    });
    expect(changed.answer.status, changed.answer.text).toBe(200);
    expect(changed.trips).toBe(2);
    expect(await valuesOf(id)).toEqual({ [f.dropdown]: option.gold, [f.number]: 7 });
    const refused = await counted(`/v2/tickets/${id}.json`, 'PATCH', {
      subject: 'Not this',
      customfields: [{ id: f.elsewhere, meta: { value: 'x' } }],
    });
    expectError(refused.answer, 400, 'ticket.customfields[0]', new RegExp(`not used in inbox ${inbox}`));
    expect(refused.trips).toBe(1);
    expect((await api(`/v2/tickets/${id}.json`, { key: admin })).body.ticket.subject).toBe('Counted');
    // out of the lists the filters below read
    expect((await api(`/v2/tickets/${id}.json`, { method: 'DELETE', key: admin })).status).toBe(204);
  });

  it("another installation's ticket is not there to be given values", async () => {
    const id = await newTicket();
    expect(
      (await patch(id, { customfields: [{ id: f.text, meta: { value: 'x' } }] }, other.users.admin.apiKey)).status,
    ).toBe(404);
    expect(await valuesOf(id)).toEqual({});
  });

  it('the field in the second inbox takes values there, and values stay when a ticket moves', async () => {
    const id = await newTicket({ inbox: secondInbox, customfields: [{ id: f.elsewhere, meta: { value: 'here' } }] });
    expect(await valuesOf(id)).toEqual({ [f.elsewhere]: 'here' });
    // moving the ticket and setting the value in the same write: the inbox it moves to counts
    const moved = await newTicket();
    expect(
      (
        await patch(moved, {
          inbox: { id: secondInbox },
          customfields: [{ id: f.elsewhere, meta: { value: 'moved' } }],
        })
      ).status,
    ).toBe(200);
    expect((await patch(id, { inbox: { id: inbox } })).status).toBe(200);
    expect(await valuesOf(id)).toEqual({ [f.elsewhere]: 'here' });
  });
});

describe('an agent-required field', () => {
  let required: number;
  beforeAll(async () => {
    required = (
      await field({
        agentLabel: 'Root cause',
        kind: 'dropdown',
        agentRequired: true,
        options: [{ name: 'Bug' }, { name: 'Question' }],
      })
    ).id;
  });
  const rootCause = async () => (await optionIds(required))[0]!;

  it('blocks solved and closed on PATCH, PUT and create until it has a value, naming the field', async () => {
    const id = await newTicket();
    const mark = await lastEventId(site.id);
    expectError(
      await patch(id, { status: { id: SOLVED } }),
      400,
      'ticket.status',
      new RegExp(`custom field ${required} \\("Root cause"\\)`),
    );
    expectError(
      await api(`/v2/tickets/${id}.json`, { method: 'PUT', key: admin, body: { ticket: { status: { id: CLOSED } } } }),
      400,
      'ticket.status',
      /Root cause/,
    );
    // clearing the value in the write that solves is refused too
    expectError(
      await patch(id, { status: { id: SOLVED }, customfields: [{ id: required, meta: { value: null } }] }),
      400,
      'ticket.status',
    );
    expect(await eventsSince(site.id, mark)).toEqual([]);
    expect((await rows('SELECT status_id FROM tickets WHERE id = $1', [id]))[0]).toEqual({ status_id: 1 });
    expectError(
      await api('/v2/tickets.json', {
        method: 'POST',
        key: admin,
        body: {
          ticket: { subject: 'Born solved', inbox, customer: { email: 'fields@values.test' }, status: { id: SOLVED } },
        },
      }),
      400,
      'ticket.status',
    );
    expect(
      await rows("SELECT id FROM tickets WHERE installation_id = $1 AND subject = 'Born solved'", [site.id]),
    ).toEqual([]);

    const solved = await patch(id, {
      status: { id: SOLVED },
      customfields: [{ id: required, meta: { value: await rootCause() } }],
    });
    expect(solved.status, solved.text).toBe(200);
    expect(solved.body.ticket.status.id).toBe(SOLVED);
    // other statuses are not held back
    const onHold = await newTicket();
    expect((await patch(onHold, { status: { id: 4 } })).status).toBe(200);
  });

  it('blocks a reply that solves and a bulk update that closes, and not a status the ticket already has', async () => {
    const id = await newTicket();
    expectError(
      await api(`/v2/tickets/${id}/messages.json`, {
        method: 'POST',
        key: admin,
        body: { message: 'Done', status: { id: SOLVED } },
      }),
      400,
      'message.status',
      /Root cause/,
    );
    expect(await rows('SELECT count(*)::int AS n FROM ticket_messages WHERE ticket_id = $1', [id])).toEqual([{ n: 0 }]);
    const second = await newTicket();
    const bulk = await api('/v2/tickets/update.json', {
      method: 'PATCH',
      key: admin,
      query: { filter: JSON.stringify({ id: { $in: [id, second] } }) },
      body: { ticket: { status: { id: CLOSED } } },
    });
    expectError(bulk, 400, 'ticket.status', new RegExp(`ticket ${id} `));
    expect(await rows('SELECT DISTINCT status_id FROM tickets WHERE id = ANY($1)', [[id, second]])).toEqual([
      { status_id: 1 },
    ]);

    // a ticket solved before the field was required keeps its status when it is sent again
    const old = await newTicket({
      status: { id: SOLVED },
      customfields: [{ id: required, meta: { value: await rootCause() } }],
    });
    await rows('DELETE FROM ticket_custom_field_values WHERE ticket_id = $1', [old]);
    expect((await patch(old, { status: { id: SOLVED }, subject: 'Still solved' })).status).toBe(200);
    expectError(await patch(old, { status: { id: CLOSED } }), 400, 'ticket.status');
  });

  it('does not hold back when switched off, or where it does not apply', async () => {
    const limited = (
      await field({
        agentLabel: 'Second inbox cause',
        kind: 'text',
        agentRequired: true,
        inboxes: [{ id: secondInbox }],
      })
    ).id;
    const id = await newTicket({ customfields: [{ id: required, meta: { value: await rootCause() } }] });
    expect((await patch(id, { status: { id: SOLVED } })).status).toBe(200);
    const there = await newTicket({
      inbox: secondInbox,
      customfields: [{ id: required, meta: { value: await rootCause() } }],
    });
    expectError(await patch(there, { status: { id: SOLVED } }), 400, 'ticket.status', /Second inbox cause/);
    expect(
      (
        await api(`/v2/customfields/${limited}.json`, {
          method: 'PATCH',
          key: admin,
          body: { customfield: { enabled: false } },
        })
      ).status,
    ).toBe(200);
    expect((await patch(there, { status: { id: SOLVED } })).status).toBe(200);
  });
});

describe('the customfields filter', () => {
  const t: Record<string, number> = {};
  beforeAll(async () => {
    const make = async (name: string, values: [number, unknown][]) => {
      t[name] = await newTicket({
        subject: `Filter ${name}`,
        customfields: values.map(([id, value]) => ({ id, meta: { value } })),
      });
    };
    await make('gold', [
      [f.text, 'Order GOLD-7'],
      [f.number, 10],
      [f.date, '2027-03-01'],
      [f.dropdown, option.gold],
      [f.checkboxes, [option.mail, option.chat]],
    ]);
    await make('silver', [
      [f.text, 'order silver'],
      [f.number, 2.5],
      [f.date, '2026-12-01'],
      [f.dropdown, option.silver],
      [f.checkboxes, [option.phone]],
    ]);
    await make('bare', []);
  });
  const listed = async (criteria: unknown, path = '/v2/tickets.json') => {
    const answer = await api(path, { key: admin, query: { customfields: JSON.stringify(criteria), pageSize: '100' } });
    expect(answer.status, answer.text).toBe(200);
    return (answer.body.tickets as { id: number }[])
      .map((ticket) => ticket.id)
      .filter((id) => Object.values(t).includes(id))
      .sort((a, b) => a - b);
  };
  const ids = (...names: string[]) => names.map((name) => t[name]!).sort((a, b) => a - b);

  it('selects tickets in the list and in search by each kind and operation', async () => {
    for (const path of ['/v2/tickets.json', '/v2/search/tickets.json']) {
      expect(await listed([{ id: f.text, value: 'gold', operation: 'contains' }], path)).toEqual(ids('gold'));
      expect(await listed([{ id: f.text, value: 'ORDER SILVER' }], path)).toEqual(ids('silver'));
      expect(await listed([{ id: f.text, value: '%', operation: 'contains' }], path)).toEqual([]);
      expect(await listed([{ id: f.number, value: '5', operation: 'gt' }], path)).toEqual(ids('gold'));
      expect(await listed([{ id: f.number, value: 2.5, operation: 'lte' }], path)).toEqual(ids('silver'));
      expect(await listed([{ id: f.date, value: '2027-01-01', operation: 'lt' }], path)).toEqual(ids('silver'));
      expect(await listed([{ id: f.dropdown, values: [option.gold, option.silver] }], path)).toEqual(
        ids('gold', 'silver'),
      );
      expect(await listed([{ id: f.dropdown, value: String(option.gold), operation: 'notEquals' }], path)).toEqual(
        ids('silver', 'bare'),
      );
      expect(await listed([{ id: f.checkboxes, values: [option.chat, option.phone] }], path)).toEqual(
        ids('gold', 'silver'),
      );
      expect(await listed([{ id: f.checkboxes, value: String(option.mail), operation: 'contains' }], path)).toEqual(
        ids('gold'),
      );
      expect(await listed([{ id: f.checkboxes, value: String(option.phone), operation: 'equals' }], path)).toEqual(
        ids('silver'),
      );
      expect(await listed([{ id: f.text, operation: 'isEmpty' }], path)).toEqual(ids('bare'));
      expect(
        await listed(
          [
            { id: f.number, operation: 'isNotEmpty' },
            { id: f.text, value: 'gold', operation: 'notContains' },
          ],
          path,
        ),
      ).toEqual(ids('silver'));
    }
    // counted over every page
    const page = await api('/v2/tickets.json', {
      key: admin,
      query: { customfields: JSON.stringify([{ id: f.dropdown, values: [option.gold] }]), pageSize: '1' },
    });
    expect(page.body.meta.page.count).toBe(1);
    expect(page.body.pagination.records).toBe(1);
  });

  it('names the entry at fault with a 400, in the list and in search', async () => {
    const foreignField =
      (await api('/v2/customfields.json', { key: other.users.admin.apiKey })).body.customfields[0]?.id ?? 1;
    for (const path of ['/v2/tickets.json', '/v2/search/tickets.json']) {
      const refused = async (value: string, source: string) =>
        expectError(await api(path, { key: admin, query: { customfields: value } }), 400, source);
      await refused('nope', 'customfields');
      await refused('{"id": 1}', 'customfields');
      await refused(JSON.stringify([{ id: 'x' }]), 'customfields[0].id');
      await refused(JSON.stringify([{ id: foreignField, value: 'x' }]), 'customfields[0].id');
      await refused(JSON.stringify([{ id: f.text, value: 'x', colour: 'red' }]), 'customfields[0].colour');
      await refused(JSON.stringify([{ id: f.text, value: 'x', operation: 'like' }]), 'customfields[0].operation');
      await refused(JSON.stringify([{ id: f.text, value: 'x', operation: 'gt' }]), 'customfields[0].operation');
      await refused(JSON.stringify([{ id: f.text, values: [1] }]), 'customfields[0].values');
      await refused(JSON.stringify([{ id: f.dropdown, values: [option.mail] }]), 'customfields[0].values');
      await refused(JSON.stringify([{ id: f.dropdown, value: 'Gold' }]), 'customfields[0].value');
      await refused(JSON.stringify([{ id: f.number, value: 'ten', operation: 'gt' }]), 'customfields[0].value');
      await refused(JSON.stringify([{ id: f.date, value: '2026-13-01', operation: 'lt' }]), 'customfields[0].value');
      await refused(JSON.stringify([{ id: f.text }]), 'customfields[0].value');
      await refused(JSON.stringify([{ id: f.text, value: { deep: [[[1]]] } }]), 'customfields[0].value');
      await refused(JSON.stringify(Array.from({ length: 21 }, () => ({ id: f.text, value: 'x' }))), 'customfields');
    }
  });
});
