// Bulk ticket updates with every change a single update takes, as the platform's samples send
// them (`filter_args` beside the changes, bare or wrapped as `ticket`): status, priority, type,
// agent, inbox, and tags added and removed, each ticket with its own events and history lines;
// dry runs change nothing; an agent's bulk reaches only tickets they see; another installation's
// tag is refused.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { drained, eventsSince, expectActor, lastEventId, summary } from '../support/events';

let site: SeededInstallation;
let owner: string;
let agent: string;
let inbox: number;
let customer: number;
let tags: number[];

beforeAll(async () => {
  site = await newInstallation('bulk-changes');
  owner = site.users.owner.apiKey;
  agent = site.users.agent.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: owner })).body.inboxes[0].id;
  customer = (await api('/v2/customers.json', { method: 'POST', key: owner, body: { email: 'bulk@changes.test' } }))
    .body.customer.id;
  tags = [];
  for (const name of ['billing', 'urgent']) {
    const tag = await api('/v2/tags.json', { method: 'POST', key: owner, body: { tag: { name } } });
    expect(tag.status, tag.text).toBe(201);
    tags.push(tag.body.tag.id);
  }
});

const newTicket = async (key = agent, body: Record<string, unknown> = {}) => {
  const made = await api('/v2/tickets.json', {
    method: 'POST',
    key,
    body: { subject: 'Bulk', inbox, customer, message: 'hello', ...body },
  });
  expect(made.status, made.text).toBe(201);
  return made.body.ticket.id as number;
};
const bulk = (body: unknown, key = agent) => api('/v2/tickets/update.json', { method: 'PATCH', key, body });
/** The selection as the platform's sample writes it. */
const byIds = (ids: number[], bulkDryExecute = false) => ({ filter: { id: { $in: ids } }, bulkDryExecute });
const stored = (ids: number[]) =>
  rows(
    'SELECT id, status_id, priority_id, type_id, agent_id, inbox_id, updated_at FROM tickets WHERE id = ANY($1) ORDER BY id',
    [ids],
  );
const tagsOf = async (ids: number[]) =>
  (
    await rows<{ ticket_id: number; tag_id: number }>(
      'SELECT ticket_id, tag_id FROM ticket_tags WHERE ticket_id = ANY($1) ORDER BY ticket_id, tag_id',
      [ids],
    )
  ).map((r) => [r.ticket_id, r.tag_id]);
/** An inbox straight in the database: the agent is a member only when asked. */
const addInbox = async (name: string, withAgent: boolean) => {
  const [row] = await rows<{ id: number }>('INSERT INTO inboxes (installation_id, name) VALUES ($1, $2) RETURNING id', [
    site.id,
    name,
  ]);
  if (withAgent)
    await rows('INSERT INTO inbox_users (installation_id, inbox_id, user_id) VALUES ($1, $2, $3)', [
      site.id,
      row!.id,
      site.users.agent.id,
    ]);
  return row!.id;
};
const historyOf = async (id: number) => {
  await drained(site.id);
  const [row] = await rows<{ types: string[] }>(
    'SELECT array_agg(event_type ORDER BY id) AS types FROM ticket_activities WHERE ticket_id = $1',
    [id],
  );
  return row!.types ?? [];
};

describe('bulk ticket updates as the platform sends them', () => {
  it("the platform's sample (status beside filter_args, bare) and every plain change, each ticket with its event and history line", async () => {
    const [a, b] = [await newTicket(), await newTicket()];
    const mark = await lastEventId(site.id);
    // byte for byte the platform's published sample
    const sample = await bulk({
      filter_args: { filter: { id: { $in: [a, b] } }, bulkDryExecute: false },
      status: { id: 4 },
    });
    expect(sample.status, sample.text).toBe(200);
    expect(sample.body).toEqual({ affected: 2, ids: [a, b], jobId: null, dryRun: false });
    const events = await eventsSince(site.id, mark);
    expect(summary(events)).toEqual(['tickets:updated', 'tickets:updated']);
    expect(events.map((event) => [event.recordId, event.data.status]).sort()).toEqual([
      [a, { before: { id: 1, type: 'ticketstatuses' }, after: { id: 4, type: 'ticketstatuses' } }],
      [b, { before: { id: 1, type: 'ticketstatuses' }, after: { id: 4, type: 'ticketstatuses' } }],
    ]);
    expectActor(events, site.users.agent.id);

    const priority = (await api('/v2/ticketpriorities.json', { key: owner })).body.ticketpriorities[0].id;
    const [current] = await stored([a]);
    const type = (await api('/v2/tickettypes.json', { key: owner })).body.tickettypes
      .map((t: { id: number }) => t.id)
      .find((id: number) => id !== current!.type_id);
    const second = await addInbox('Second', true);
    // the wrapped form too, each reference as the platform's client writes it
    for (const change of [
      { priority: { id: priority } },
      { type: { id: type } },
      { agent: { id: site.users.admin.id } },
      { inbox: { id: second } },
    ]) {
      const answer = await bulk({ ticket: change, filter_args: byIds([a, b]) });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.ids).toEqual([a, b]);
    }
    expect((await stored([a, b])).map(({ id: _id, updated_at: _at, ...row }) => row)).toEqual([
      { status_id: 4, priority_id: priority, type_id: type, agent_id: site.users.admin.id, inbox_id: second },
      { status_id: 4, priority_id: priority, type_id: type, agent_id: site.users.admin.id, inbox_id: second },
    ]);
    expect(await historyOf(b)).toEqual([
      'ticket.created',
      'ticket.status',
      'ticket.priority',
      'ticket.type',
      'ticket.assigned',
      'ticket.moved',
    ]);
  });

  it('tags added in bulk ({"id": N}) and removed ({"id": N, "meta": {"delete": true}}) from those that have them, with the single update\'s link events', async () => {
    const [a, b, c] = [await newTicket(), await newTicket(), await newTicket()];
    const [billing, urgent] = tags as [number, number];
    const single = await api(`/v2/tickets/${c}.json`, {
      method: 'PATCH',
      key: agent,
      body: { ticket: { tags: [{ id: urgent }] } },
    });
    expect(single.status, single.text).toBe(200);
    let mark = await lastEventId(site.id);
    const added = await bulk({
      filter_args: byIds([a, b, c]),
      status: { id: 4 },
      tags: [{ id: billing }, { id: urgent }],
    });
    expect(added.status, added.text).toBe(200);
    expect(added.body.ids).toEqual([a, b, c]);
    expect(await tagsOf([a, b, c])).toEqual([
      [a, billing],
      [a, urgent],
      [b, billing],
      [b, urgent],
      [c, billing],
      [c, urgent],
    ]);
    let events = await eventsSince(site.id, mark);
    // c had urgent already: no second link
    const links = events
      .filter((event) => event.kind === 'linked')
      .map((event) => [event.recordId, (event.data.record as { id: number }).id]);
    expect(links.sort()).toEqual(
      [
        [a, billing],
        [a, urgent],
        [b, billing],
        [b, urgent],
        [c, billing],
      ].sort(),
    );
    expect(
      events
        .filter((event) => event.kind === 'updated')
        .map((event) => event.recordId)
        .sort(),
    ).toEqual([a, b, c].sort());

    // removed from those that have it; a ticket without it is left as it is
    await api(`/v2/tickets/${b}.json`, {
      method: 'PATCH',
      key: agent,
      body: { ticket: { tags: [{ id: urgent, meta: { delete: true } }] } },
    });
    mark = await lastEventId(site.id);
    const removed = await bulk({
      ticket: { tags: [{ id: urgent, meta: { delete: true } }] },
      filter_args: byIds([a, b, c]),
    });
    expect(removed.status, removed.text).toBe(200);
    expect(await tagsOf([a, b, c])).toEqual([
      [a, billing],
      [b, billing],
      [c, billing],
    ]);
    events = await eventsSince(site.id, mark);
    expect(
      events
        .filter((event) => event.kind === 'unlinked')
        .map((event) => event.recordId)
        .sort(),
    ).toEqual([a, c].sort());
    expect(summary(events).filter((kind) => kind !== 'tickets:unlinked')).toEqual([]);
    // `"delete": true` and the query's filter work the same way
    const query = await api('/v2/tickets/update.json', {
      method: 'PATCH',
      key: agent,
      query: { filter: { id: { $in: [a] } } },
      body: { ticket: { tags: [{ id: billing, delete: true }] } },
    });
    expect(query.status, query.text).toBe(200);
    expect(await tagsOf([a])).toEqual([]);
    expect(await historyOf(a)).toEqual([
      'ticket.created',
      'ticket.status',
      'ticket.tag.added',
      'ticket.tag.added',
      'ticket.tag.removed',
      'ticket.tag.removed',
    ]);
  });

  it("each ticket's tag added in bulk runs the automatic triggers on it, as a single update's would", async () => {
    const marker = (await api('/v2/tags.json', { method: 'POST', key: owner, body: { tag: { name: 'escalate' } } }))
      .body.tag.id;
    const priority = (await api('/v2/ticketpriorities.json', { key: owner })).body.ticketpriorities[0].id;
    const made = await api('/v2/triggers.json', {
      method: 'POST',
      key: owner,
      body: {
        trigger: {
          name: 'Escalated is high',
          conditions: [{ field: 9, operator: 17, value: String(marker) }],
          triggeractions: [{ type: 2, value: String(priority) }],
        },
      },
    });
    expect(made.status, made.text).toBe(201);
    const [a, b, untouched] = [await newTicket(), await newTicket(), await newTicket()];
    const answer = await bulk({ filter_args: byIds([a, b]), tags: [{ id: marker }] });
    expect(answer.status, answer.text).toBe(200);
    await drained(site.id);
    expect((await stored([a, b, untouched])).map((row) => row.priority_id)).toEqual([priority, priority, null]);
    // switched off again, so that the other cases' tickets are not touched
    expect(
      (await api(`/v2/triggers/${made.body.trigger.id}.json`, { method: 'DELETE', key: owner })).status,
    ).toBeLessThan(300);
  });

  it('a dry run of every change (tags too) answers what would change and changes nothing', async () => {
    const [a, b] = [await newTicket(), await newTicket()];
    const before = await stored([a, b]);
    const mark = await lastEventId(site.id);
    const dry = await bulk({
      filter_args: byIds([a, b], true),
      status: { id: 5 },
      priority: null,
      agent: { id: site.users.owner.id },
      tags: [{ id: tags[0] }],
    });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body).toEqual({ affected: 2, ids: [a, b], jobId: null, dryRun: true });
    expect(await stored([a, b])).toEqual(before);
    expect(await tagsOf([a, b])).toEqual([]);
    expect((await eventsSince(site.id, mark)).filter((event) => event.actorSystem !== 'mail')).toEqual([]);
  });

  it("an agent's bulk reaches only the tickets they see: a hidden ticket keeps its status and tags", async () => {
    const hiddenInbox = await addInbox('Hidden', false);
    const hidden = await newTicket(owner, { inbox: hiddenInbox });
    const seen = await newTicket();
    const before = await stored([hidden]);
    const answer = await bulk({ filter_args: byIds([hidden, seen]), status: { id: 4 }, tags: [{ id: tags[0] }] });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.ids).toEqual([seen]);
    const alone = await bulk({ filter_args: byIds([hidden]), status: { id: 6 }, tags: [{ id: tags[1] }] });
    expect(alone.body).toMatchObject({ affected: 0, ids: [] });
    expect(await stored([hidden])).toEqual(before);
    expect(await tagsOf([hidden])).toEqual([]);
    expect(await tagsOf([seen])).toEqual([[seen, tags[0]]]);
    // nor can the agent move what they see out of sight, tags or not
    expectError(await bulk({ filter_args: byIds([seen]), inbox: { id: hiddenInbox }, tags: [{ id: tags[1] }] }), 403);
    expect(await tagsOf([seen])).toEqual([[seen, tags[0]]]);
  });

  it("refuses another installation's tag or an unknown one, and a collaborator as agent: 400, nothing changes", async () => {
    const [a, b] = [await newTicket(), await newTicket()];
    const other = await newInstallation('bulk-changes-other');
    const foreign = (
      await api('/v2/tags.json', { method: 'POST', key: other.users.owner.apiKey, body: { tag: { name: 'theirs' } } })
    ).body.tag.id;
    const before = await stored([a, b]);
    const mark = await lastEventId(site.id);
    expectError(
      await bulk({ filter_args: byIds([a, b]), status: { id: 4 }, tags: [{ id: foreign }] }),
      400,
      'ticket.tags[0].id',
    );
    expectError(
      await bulk({
        ticket: { status: { id: 4 }, tags: [{ id: tags[0] }, { id: 2_000_000_000 }] },
        filter_args: byIds([a, b]),
      }),
      400,
      'ticket.tags[1].id',
    );
    expectError(await bulk({ filter_args: byIds([a, b]), tags: [{ id: foreign }] }, owner), 400, 'ticket.tags[0].id');
    expectError(
      await bulk({ filter_args: byIds([a, b]), agent: { id: site.users.collaborator.id }, tags: [{ id: tags[0] }] }),
      400,
      'ticket.agent',
    );
    expect(await stored([a, b])).toEqual(before);
    expect(await tagsOf([a, b])).toEqual([]);
    // (the first messages' mail out may still be finishing: its events are not the bulk update's)
    expect((await eventsSince(site.id, mark)).filter((event) => event.actorSystem !== 'mail')).toEqual([]);
    // nor does another installation reach these tickets with its own tag
    const theirs = await api('/v2/tickets/update.json', {
      method: 'PATCH',
      key: other.users.owner.apiKey,
      body: { filter_args: byIds([a, b]), tags: [{ id: foreign }] },
    });
    expect(theirs.body).toMatchObject({ affected: 0, ids: [] });
    expect(await tagsOf([a, b])).toEqual([]);
  });
});
