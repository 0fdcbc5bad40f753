// A reply or a note is one exchange with the database (one HTTP batch, no WebSocket connection):
// the ticket locked, the entry, its files and mentions, the status it names or implies, the
// status's rules and the read-back, with a failed rule answering its 4xx and leaving nothing
// (docs/connection-strategy.md, "Writes in one round trip").
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { drained, eventsSince, lastEventId, summary } from '../support/events';
import { uploadedFile } from '../support/files';
import { awaitLogLines } from '../support/logs';

let site: SeededInstallation;
let other: SeededInstallation;
let agent: string;
let inbox: number;
let customer: number;

beforeAll(async () => {
  site = await newInstallation('reply-trips');
  other = await newInstallation('reply-trips-other');
  agent = site.users.agent.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: agent })).body.inboxes[0].id;
  customer = (await api('/v2/customers.json', { method: 'POST', key: agent, body: { email: 'trips@tickets.test' } }))
    .body.customer.id;
});

const newTicket = async () =>
  (
    await api('/v2/tickets.json', {
      method: 'POST',
      key: agent,
      body: { subject: 'Trips', inbox, customer, message: 'first' },
    })
  ).body.ticket.id as number;
const ticket = async (id: number) => (await api(`/v2/tickets/${id}.json`, { key: agent })).body.ticket;

/**
 * Before a request is counted: the drain of what came before is done (it locks the rows a write
 * takes, and a race it wins is a try more), and the caller's credential is remembered (it is kept
 * 30 s, which a far run outlasts): what is counted is the request's own.
 */
async function quiet(key: string) {
  await drained(site.id);
  await api('/v2/inboxes.json', { key });
}

/** A reply or note, and the round trips its request made (from its log line). */
async function post(id: number, body: unknown, key = agent) {
  await quiet(key);
  const requestId = `reply-${Math.random().toString(36).slice(2)}`;
  const answer = await api(`/v2/tickets/${id}/messages.json`, {
    method: 'POST',
    key,
    body,
    headers: { 'x-request-id': requestId },
  });
  const [line] = await awaitLogLines({ requestId });
  return { answer, trips: line!.dbRoundTrips as number };
}

describe('a reply in one round trip', () => {
  it('a reply with a file and a mention, and a note: one exchange each, with the same entry, status move and events as ever', async () => {
    const id = await newTicket();
    const file = await uploadedFile(agent, 'plain words');
    const mark = await lastEventId(site.id);
    const reply = await post(id, {
      message: '<p>On it</p>',
      files: [{ id: file }],
      mentions: [{ id: site.users.admin.id }],
    });
    expect(reply.answer.status, reply.answer.text).toBe(201);
    expect(reply.trips).toBe(1);
    expect(reply.answer.body.message).toMatchObject({
      message: '<p>On it</p>',
      threadType: 'message',
      ticket: { id, type: 'tickets' },
      createdBy: { id: site.users.agent.id, type: 'users' },
    });
    expect(await ticket(id)).toMatchObject({ status: { id: 3 }, messageCount: 2, previewText: 'On it' });
    expect(
      await rows(`SELECT file_id FROM ticket_message_files WHERE message_id = $1`, [reply.answer.body.message.id]),
    ).toEqual([{ file_id: file }]);
    expect(
      await rows(`SELECT user_id FROM ticket_followers WHERE ticket_id = $1 AND user_id = $2`, [
        id,
        site.users.admin.id,
      ]),
    ).toHaveLength(1);
    expect(summary(await eventsSince(site.id, mark))).toEqual(
      expect.arrayContaining(['messages:created', 'messages:linked', 'tickets:linked', 'tickets:updated']),
    );

    const note = await post(id, { message: 'internal', threadType: 'note' });
    expect(note.answer.status, note.answer.text).toBe(201);
    expect(note.trips).toBe(1);
    expect(await ticket(id)).toMatchObject({ status: { id: 3 }, messageCount: 2, previewText: 'On it' });
  });

  it("the customer's reply reopens a waiting ticket, and a named status is taken, in one exchange", async () => {
    const id = await newTicket();
    await post(id, { message: 'On it' });
    const back = await post(id, { message: 'Still broken', customer: { id: customer } });
    expect(back.answer.status, back.answer.text).toBe(201);
    expect(back.trips).toBe(1);
    expect((await ticket(id)).status.id).toBe(1);
    const solved = await post(id, { message: 'Fixed now', status: { id: 5 } });
    expect(solved.answer.status, solved.answer.text).toBe(201);
    expect(solved.trips).toBe(1);
    expect((await ticket(id)).status.id).toBe(5);
  });

  it("refuses in the same exchange, writing nothing: another installation's ticket (404), a status not here, a file not the caller's, a customer not the ticket's", async () => {
    const theirs = (
      await api('/v2/tickets.json', {
        method: 'POST',
        key: other.users.agent.apiKey,
        body: {
          subject: 'Theirs',
          inbox: (await api('/v2/inboxes.json', { key: other.users.agent.apiKey })).body.inboxes[0].id,
          customer: { email: 'theirs@tickets.test' },
          message: 'x',
        },
      })
    ).body.ticket.id as number;
    const foreign = await post(theirs, { message: 'Hello' });
    expect(foreign.answer.status).toBe(404);
    expect(foreign.answer.body.errors).toEqual([
      { code: 'notFound', source: 'id', detail: `ticket ${theirs} not found` },
    ]);
    expect(foreign.trips).toBe(1);

    const id = await newTicket();
    const theirFile = await uploadedFile(other.users.agent.apiKey, 'not yours');
    const stranger = (
      await api('/v2/customers.json', { method: 'POST', key: agent, body: { email: 'stranger@tickets.test' } })
    ).body.customer.id as number;
    for (const [body, source] of [
      [{ message: 'x', status: { id: 987654 } }, 'message.status'],
      [{ message: 'x', files: [{ id: theirFile }] }, 'message.files[0]'],
      [{ message: 'x', customer: { id: stranger } }, 'message.customer'],
    ] as const) {
      const refused = await post(id, body);
      expect(refused.answer.status, refused.answer.text).toBe(400);
      expect(refused.answer.body.errors).toEqual([expect.objectContaining({ code: 'invalid', source })]);
      expect(refused.trips).toBe(1);
    }
    expect(await ticket(id)).toMatchObject({ status: { id: 1 }, messageCount: 1 });
    expect(await rows(`SELECT id FROM ticket_messages WHERE ticket_id = $1`, [theirs])).toHaveLength(1);
  });

  it("an owner's reply written as another teammate (`agent`): one exchange, the author checked in it", async () => {
    const id = await newTicket();
    const owner = site.users.owner.apiKey;
    // the owner's credential looked up once, then remembered: the request below is the write alone
    await api(`/v2/tickets/${id}.json`, { key: owner });
    const asAgent = await post(id, { message: 'Written for the agent', agent: { id: site.users.agent.id } }, owner);
    expect(asAgent.answer.status, asAgent.answer.text).toBe(201);
    expect(asAgent.trips).toBe(1);
    expect(asAgent.answer.body.message.createdBy).toEqual({ id: site.users.agent.id, type: 'users' });
    const refused = await post(id, { message: 'x', agent: { id: site.users.collaborator.id } }, owner);
    expect(refused.answer.status).toBe(400);
    expect(refused.answer.body.errors).toEqual([
      {
        code: 'invalid',
        source: 'message.agent',
        detail: 'a collaborator writes no replies or notes: name an owner, admin or agent',
      },
    ]);
    expect(refused.trips).toBe(1);
    expect((await ticket(id)).messageCount).toBe(2);
  });

  it('a named solving status still needs every required field: 400 naming it, and nothing written', async () => {
    const field = await api('/v2/customfields.json', {
      method: 'POST',
      key: site.users.admin.apiKey,
      body: { customfield: { agentLabel: `Root cause ${Date.now()}`, kind: 'text', agentRequired: true } },
    });
    expect(field.status, field.text).toBe(201);
    try {
      const id = await newTicket();
      const refused = await post(id, { message: 'Solved', status: { id: 5 } });
      expect(refused.answer.status, refused.answer.text).toBe(400);
      expect(refused.answer.body.errors).toEqual([
        {
          code: 'invalid',
          source: 'message.status',
          detail: `custom field ${field.body.customfield.id} ("${field.body.customfield.agentLabel}") is required: give ticket ${id} a value of it before it is solved or closed`,
        },
      ]);
      expect(refused.trips).toBe(1);
      expect(await ticket(id)).toMatchObject({ status: { id: 1 }, messageCount: 1 });
    } finally {
      await api(`/v2/customfields/${field.body.customfield.id}.json`, {
        method: 'DELETE',
        key: site.users.admin.apiKey,
      });
    }
  });
});

/** A ticket write, and the round trips its request made. */
async function write(path: string, method: string, body: unknown, key = agent) {
  await quiet(key);
  const requestId = `ticket-${Math.random().toString(36).slice(2)}`;
  const answer = await api(path, { method, key, body, headers: { 'x-request-id': requestId } });
  const [line] = await awaitLogLines({ requestId });
  return { answer, trips: line!.dbRoundTrips as number };
}

describe('a ticket created or changed in one round trip', () => {
  it('creates a ticket for a customer by id, with its first message and a file, in one exchange', async () => {
    const file = await uploadedFile(agent, 'first words');
    const made = await write('/v2/tickets.json', 'POST', {
      ticket: {
        subject: 'One trip',
        inbox,
        customer: { id: customer },
        message: '<p>It shattered</p>',
        files: [{ id: file }],
      },
    });
    expect(made.answer.status, made.answer.text).toBe(201);
    expect(made.trips).toBe(1);
    const id = made.answer.body.ticket.id as number;
    expect(made.answer.body.ticket).toMatchObject({
      subject: 'One trip',
      customer: { id: customer },
      status: { id: 1 },
      messageCount: 1,
      previewText: 'It shattered',
    });
    const [entry] = await rows<{ id: number; customer_id: number }>(
      `SELECT id, customer_id FROM ticket_messages WHERE ticket_id = $1`,
      [id],
    );
    expect(entry!.customer_id).toBe(customer);
    expect(await rows(`SELECT file_id FROM ticket_message_files WHERE message_id = $1`, [entry!.id])).toEqual([
      { file_id: file },
    ]);
    // found by its words
    const found = await api('/v2/search/tickets.json', { key: agent, query: { search: 'shattered' } });
    expect(found.status, found.text).toBe(200);
    expect(found.body.tickets.map((t: { id: number }) => t.id)).toEqual([id]);
  });

  it('creates a ticket for a new customer named by email, made with it and joined to the company of its domain, in one exchange', async () => {
    const domain = `new-${Date.now()}.example.com`;
    const company = await api('/v2/companies.json', {
      key: agent,
      method: 'POST',
      body: { company: { name: `New ${Date.now()}`, kind: 'company', domains: [{ name: domain }] } },
    });
    expect(company.status, company.text).toBe(201);
    const email = `first@${domain}`;
    const made = await write('/v2/tickets.json', 'POST', {
      ticket: { subject: 'New customer', inbox, customer: { email, firstName: 'Fay' }, message: 'Hello' },
    });
    expect(made.answer.status, made.answer.text).toBe(201);
    expect(made.trips).toBe(1);
    const [who] = await rows<{ id: number; first_name: string; add_method: string }>(
      `SELECT id, first_name, add_method FROM customers WHERE installation_id = $1 AND email = $2`,
      [site.id, email],
    );
    expect(who).toMatchObject({ first_name: 'Fay', add_method: 'ticket' });
    expect(made.answer.body.ticket.customer.id).toBe(who!.id);
    expect(await rows(`SELECT company_id FROM company_customers WHERE customer_id = $1`, [who!.id])).toEqual([
      { company_id: company.body.company.id },
    ]);
    // a ticket changed to a customer named by a new address: made, and joined to the company of its domain too
    const moved = await write(`/v2/tickets/${made.answer.body.ticket.id}.json`, 'PATCH', {
      ticket: { customer: { email: `second@${domain}` } },
    });
    expect(moved.answer.status, moved.answer.text).toBe(200);
    expect(moved.trips).toBe(1);
    const [second] = await rows<{ id: number }>(`SELECT id FROM customers WHERE installation_id = $1 AND email = $2`, [
      site.id,
      `second@${domain}`,
    ]);
    expect(moved.answer.body.ticket.customer.id).toBe(second!.id);
    expect(await rows(`SELECT company_id FROM company_customers WHERE customer_id = $1`, [second!.id])).toEqual([
      { company_id: company.body.company.id },
    ]);
    // the same address again is the same customer, made once
    const again = await write('/v2/tickets.json', 'POST', {
      ticket: { subject: 'Again', inbox, customer: { email: email.toUpperCase() }, message: 'Hi' },
    });
    expect(again.answer.status, again.answer.text).toBe(201);
    expect(again.answer.body.ticket.customer.id).toBe(who!.id);
    expect(
      await rows(`SELECT id FROM customers WHERE installation_id = $1 AND lower(email) = $2`, [site.id, email]),
    ).toHaveLength(1);
  });

  it('changes a ticket (status, priority, subject) in one exchange; a status sent again is no move', async () => {
    const id = await newTicket();
    const changed = await write(`/v2/tickets/${id}.json`, 'PATCH', {
      ticket: { status: { id: 5 }, subject: 'Renamed' },
    });
    expect(changed.answer.status, changed.answer.text).toBe(200);
    expect(changed.trips).toBe(1);
    expect(changed.answer.body.ticket).toMatchObject({ status: { id: 5 }, subject: 'Renamed' });
    const mark = await lastEventId(site.id);
    const same = await write(`/v2/tickets/${id}.json`, 'PATCH', { ticket: { status: { id: 5 } } });
    expect(same.answer.status).toBe(200);
    expect(await eventsSince(site.id, mark)).toEqual([]);
  });

  it("refuses in the same exchange, changing nothing: an unknown inbox, another installation's customer, a collaborator as agent, a required field missing on solving, a ticket moved out of the agent's sight", async () => {
    const theirs = (
      await api('/v2/customers.json', {
        method: 'POST',
        key: other.users.agent.apiKey,
        body: { email: `theirs-${Date.now()}@tickets.test` },
      })
    ).body.customer.id as number;
    const before = await rows(`SELECT count(*)::int AS n FROM tickets WHERE installation_id = $1`, [site.id]);
    for (const [body, source] of [
      [{ subject: 'x', inbox: 987654, customer: { id: customer } }, 'ticket.inbox'],
      [{ subject: 'x', inbox, customer: { id: theirs } }, 'ticket.customer'],
      [{ subject: 'x', inbox, customer: { id: customer }, agent: { id: site.users.collaborator.id } }, 'ticket.agent'],
    ] as const) {
      const refused = await write('/v2/tickets.json', 'POST', { ticket: body });
      expect(refused.answer.status, refused.answer.text).toBe(400);
      expect(refused.answer.body.errors).toEqual([expect.objectContaining({ code: 'invalid', source })]);
      expect(refused.trips).toBe(1);
    }
    expect(await rows(`SELECT count(*)::int AS n FROM tickets WHERE installation_id = $1`, [site.id])).toEqual(before);

    const field = await api('/v2/customfields.json', {
      method: 'POST',
      key: site.users.admin.apiKey,
      body: { customfield: { agentLabel: `Cause ${Date.now()}`, kind: 'text', agentRequired: true } },
    });
    try {
      const id = await newTicket();
      const refused = await write(`/v2/tickets/${id}.json`, 'PATCH', {
        ticket: { status: { id: 5 }, subject: 'Not this' },
      });
      expect(refused.answer.status, refused.answer.text).toBe(400);
      expect(refused.answer.body.errors).toEqual([
        expect.objectContaining({ code: 'invalid', source: 'ticket.status' }),
      ]);
      expect(refused.trips).toBe(1);
      expect(await ticket(id)).toMatchObject({ status: { id: 1 }, subject: 'Trips' });
    } finally {
      await api(`/v2/customfields/${field.body.customfield.id}.json`, {
        method: 'DELETE',
        key: site.users.admin.apiKey,
      });
    }
  });
});

describe('a bulk update in one round trip', () => {
  it('changes the tickets a filter selects in one exchange, each with its event; a refused rule changes none', async () => {
    const a = await newTicket();
    const b = await newTicket();
    const filter_args = { filter: { id: { $in: [a, b] } } };
    const mark = await lastEventId(site.id);
    const changed = await write('/v2/tickets/update.json', 'PATCH', {
      filter_args,
      status: { id: 4 },
      subject: 'Bulk quartzite',
    });
    expect(changed.answer.status, changed.answer.text).toBe(200);
    expect(changed.answer.body).toEqual({ affected: 2, ids: [a, b].sort((x, y) => x - y), jobId: null, dryRun: false });
    expect(changed.trips).toBe(1);
    expect(summary(await eventsSince(site.id, mark))).toEqual(['tickets:updated', 'tickets:updated']);
    expect(await ticket(a)).toMatchObject({ status: { id: 4 }, subject: 'Bulk quartzite' });
    // found by its new words: the search documents followed
    const found = await api('/v2/search/tickets.json', { key: agent, query: { search: 'quartzite' } });
    expect(found.body.tickets.map((t: { id: number }) => t.id).sort()).toEqual([a, b].sort());

    const refused = await write('/v2/tickets/update.json', 'PATCH', {
      filter_args,
      agent: { id: site.users.collaborator.id },
    });
    expect(refused.answer.status, refused.answer.text).toBe(400);
    expect(refused.answer.body.errors).toEqual([expect.objectContaining({ code: 'invalid', source: 'ticket.agent' })]);
    expect(refused.trips).toBe(1);
    const unknown = await write('/v2/tickets/update.json', 'PATCH', { filter_args, priority: { id: 987654 } });
    expect(unknown.answer.status).toBe(400);
    expect(unknown.answer.body.errors).toEqual([
      expect.objectContaining({ code: 'invalid', source: 'ticket.priority' }),
    ]);
    expect(await ticket(a)).toMatchObject({ status: { id: 4 }, agent: null });
  });

  it('adds and removes tags over the selected tickets in one exchange, with their link events; a tag not here changes nothing', async () => {
    const owner = site.users.owner.apiKey;
    const tag = async (name: string) =>
      (await api('/v2/tags.json', { method: 'POST', key: owner, body: { tag: { name } } })).body.tag.id as number;
    const [gold, old] = [await tag(`gold-${Date.now()}`), await tag(`old-${Date.now()}`)];
    const a = await newTicket();
    const b = await newTicket();
    expect(
      (await api(`/v2/tickets/${a}.json`, { method: 'PATCH', key: agent, body: { ticket: { tags: [{ id: old }] } } }))
        .status,
    ).toBe(200);
    const filter_args = { filter: { id: { $in: [a, b] } } };
    const mark = await lastEventId(site.id);
    const tagged = await write('/v2/tickets/update.json', 'PATCH', {
      filter_args,
      tags: [{ id: gold }, { id: old, meta: { delete: true } }],
    });
    expect(tagged.answer.status, tagged.answer.text).toBe(200);
    expect(tagged.trips).toBe(1);
    expect(
      await rows('SELECT ticket_id, tag_id FROM ticket_tags WHERE ticket_id = ANY($1) ORDER BY ticket_id, tag_id', [
        [a, b],
      ]),
    ).toEqual(
      [
        { ticket_id: a, tag_id: gold },
        { ticket_id: b, tag_id: gold },
      ].sort((x, y) => x.ticket_id - y.ticket_id),
    );
    expect(summary(await eventsSince(site.id, mark)).sort()).toEqual([
      'tickets:linked',
      'tickets:linked',
      'tickets:unlinked',
    ]);

    const refused = await write('/v2/tickets/update.json', 'PATCH', {
      filter_args,
      subject: 'Not this',
      tags: [{ id: old }, { id: 987654 }],
    });
    expect(refused.answer.status).toBe(400);
    expect(refused.answer.body.errors).toEqual([
      { code: 'invalid', source: 'ticket.tags[1].id', detail: 'no tags 987654 here' },
    ]);
    expect(refused.trips).toBe(1);
    expect(await rows('SELECT tag_id FROM ticket_tags WHERE ticket_id = $1', [a])).toEqual([{ tag_id: gold }]);
  });

  it('answers a dry run in one exchange, refused where the update would be, and changes nothing', async () => {
    const owner = site.users.owner.apiKey;
    const gold = (
      await api('/v2/tags.json', { method: 'POST', key: owner, body: { tag: { name: `dry-gold-${Date.now()}` } } })
    ).body.tag.id as number;
    const a = await newTicket();
    const b = await newTicket();
    const filter_args = { filter: { id: { $in: [a, b] } }, bulkDryExecute: true };
    const before = await rows(
      'SELECT id, status_id, subject, updated_at::text FROM tickets WHERE id = ANY($1) ORDER BY id',
      [[a, b]],
    );
    const mark = await lastEventId(site.id);
    const dry = await write('/v2/tickets/update.json', 'PATCH', {
      filter_args,
      status: { id: 4 },
      subject: 'Dry quartz',
      tags: [{ id: gold }],
    });
    expect(dry.answer.status, dry.answer.text).toBe(200);
    expect(dry.answer.body).toEqual({ affected: 2, ids: [a, b].sort((x, y) => x - y), jobId: null, dryRun: true });
    expect(dry.trips).toBe(1);
    // a dry run selecting nothing: none would change
    const none = await write('/v2/tickets/update.json', 'PATCH', {
      filter_args: { filter: { id: { $in: [2_000_000_000] } }, bulkDryExecute: true },
      subject: 'Nothing',
    });
    expect(none.answer.body).toEqual({ affected: 0, ids: [], jobId: null, dryRun: true });
    expect(none.trips).toBe(1);
    // a rule the update would break refuses the dry run alike
    const refused = await write('/v2/tickets/update.json', 'PATCH', {
      filter_args,
      agent: { id: site.users.collaborator.id },
    });
    expect(refused.answer.status, refused.answer.text).toBe(400);
    expect(refused.answer.body.errors).toEqual([expect.objectContaining({ code: 'invalid', source: 'ticket.agent' })]);
    expect(refused.trips).toBe(1);
    expect(
      await rows('SELECT id, status_id, subject, updated_at::text FROM tickets WHERE id = ANY($1) ORDER BY id', [
        [a, b],
      ]),
    ).toEqual(before);
    expect(await rows('SELECT ticket_id FROM ticket_tags WHERE tag_id = $1', [gold])).toEqual([]);
    expect(await eventsSince(site.id, mark)).toEqual([]);
  });
});

describe('ticket operations in one round trip', () => {
  it('marks spam (blacklisting the sender), merges, deletes and restores, one exchange each', async () => {
    const spam = await newTicket();
    const marked = await write(`/v2/tickets/${spam}/spam.json`, 'POST', { blacklist: true });
    expect(marked.answer.status, marked.answer.text).toBe(200);
    expect(marked.trips).toBe(1);
    expect(
      await rows(
        `SELECT list_type FROM spam_lists WHERE installation_id = $1 AND term = 'trips@tickets.test' AND state = 'active'`,
        [site.id],
      ),
    ).toEqual([{ list_type: 'blacklist' }]);
    // again: the address is on the list once
    expect((await write(`/v2/tickets/${spam}/spam.json`, 'POST', { blacklist: true })).answer.status).toBe(200);
    expect(
      await rows(
        `SELECT id FROM spam_lists WHERE installation_id = $1 AND term = 'trips@tickets.test' AND state = 'active'`,
        [site.id],
      ),
    ).toHaveLength(1);

    const kept = await newTicket();
    const folded = await newTicket();
    const merged = await write(`/v2/tickets/${kept}/merge.json`, 'POST', { tickets: [{ id: folded }] });
    expect(merged.answer.status, merged.answer.text).toBe(200);
    expect(merged.trips).toBe(1);
    expect(merged.answer.body.ticket).toMatchObject({ id: kept, messageCount: 2 });
    const again = await write(`/v2/tickets/${kept}/merge.json`, 'POST', { tickets: [{ id: folded }] });
    expect(again.answer.status).toBe(400);
    expect(again.answer.body.errors).toEqual([
      { code: 'invalid', source: 'tickets[0]', detail: `ticket ${folded} is already merged into ticket ${kept}` },
    ]);
    expect(again.trips).toBe(1);

    expect((await api(`/v2/tickets/${kept}.json`, { method: 'DELETE', key: agent })).status).toBe(204);
    const restored = await write(`/v2/tickets/${kept}/restore.json`, 'POST', {});
    expect(restored.answer.status, restored.answer.text).toBe(200);
    expect(restored.trips).toBe(1);
    expect((await ticket(kept)).id).toBe(kept);
  });
});

describe('a thread entry edited in one round trip', () => {
  it('edits a reply (the old body kept as a revision) and sends a draft (the ticket moves to waiting), one exchange each; a customer message keeps its words', async () => {
    const id = await newTicket();
    const draft = (await post(id, { message: 'Draft words', isDraft: true })).answer.body.message.id as number;
    const sent = await write(`/v2/messages/${draft}.json`, 'PATCH', {
      message: { message: '**Sent** words', editMethod: 'markdown', isDraft: false },
    });
    expect(sent.answer.status, sent.answer.text).toBe(200);
    expect(sent.trips).toBe(1);
    expect(sent.answer.body.message).toMatchObject({ isDraft: false, editMethod: 'markdown', textBody: 'Sent words' });
    expect(sent.answer.body.message.htmlBody).toContain('<strong>Sent</strong>');
    expect(await ticket(id)).toMatchObject({ status: { id: 3 }, previewText: 'Sent words' });
    expect(await rows(`SELECT html_body FROM ticket_message_revisions WHERE message_id = $1`, [draft])).toEqual([
      { html_body: 'Draft words' },
    ]);

    // sent without editMethod: rendered by the method the entry keeps (markdown)
    const edited = await write(`/v2/messages/${draft}.json`, 'PATCH', { message: { message: '_Edited_' } });
    expect(edited.answer.status, edited.answer.text).toBe(200);
    expect(edited.trips).toBe(1);
    expect(edited.answer.body.message.htmlBody).toContain('<em>Edited</em>');

    const first = (
      await rows<{ id: number }>(`SELECT id FROM ticket_messages WHERE ticket_id = $1 ORDER BY id LIMIT 1`, [id])
    )[0]!.id;
    const refused = await write(`/v2/messages/${first}.json`, 'PATCH', { message: { message: 'Not theirs' } });
    expect(refused.answer.status).toBe(409);
    expect(refused.answer.body.errors).toEqual([
      expect.objectContaining({ code: 'conflict', source: 'message.message' }),
    ]);
    expect(refused.trips).toBe(1);
    const back = await write(`/v2/messages/${draft}.json`, 'PATCH', { message: { isDraft: true } });
    expect(back.answer.status).toBe(400);
    expect(back.answer.body.errors).toEqual([expect.objectContaining({ source: 'message.isDraft' })]);

    // deleted: the preview follows the thread back to the customer's first message
    const deleted = await write(`/v2/messages/${draft}.json`, 'DELETE', undefined);
    expect(deleted.answer.status, deleted.answer.text).toBe(204);
    expect(deleted.trips).toBe(1);
    expect(await ticket(id)).toMatchObject({ previewText: 'first' });
    const again = await write(`/v2/messages/${draft}.json`, 'DELETE', undefined);
    expect(again.answer.status).toBe(404);
  });
});
