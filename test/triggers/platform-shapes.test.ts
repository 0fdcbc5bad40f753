// Triggers written as the platform's samples write them: actions with their typed payloads (every
// action code) and `"id": null`, read back in that shape and fired on a ticket; the list sent back
// whole keeps its ids and changes nothing; a list that leaves an entry out removes it; another
// trigger's entries and another installation's records refused; `applyToExistingTickets` beside
// the record.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { runCron } from '../support/cron';
import { rows } from '../support/db';
import { expectError } from '../support/errors';
import { drained, eventsSince, lastEventId } from '../support/events';
import { triggerSite } from './trigger-site';
import { receiver, TOKEN } from '../webhooks/receiver';

const WAITING = 3;

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;
let inbox: number;
let quietInbox: number;
let high: number;
let ticketType: number;
let endpoint: number;
const hook = receiver();

const tag = async (name: string, key = admin) =>
  (await api('/v2/tags.json', { method: 'POST', key, body: { name } })).body.tag.id as number;
/** A create or an update as the platform's samples send it: the record, its entries under `included`, and `applyToExistingTickets` beside. */
const sample = (
  trigger: Record<string, unknown>,
  included: Record<string, unknown>,
  applyToExistingTickets = false,
) => ({ trigger, included, applyToExistingTickets });
const post = (body: unknown, key = admin) =>
  api('/v2/triggers.json', { method: 'POST', key, body, query: { includes: 'all' } });
const patch = (id: number, body: unknown) =>
  api(`/v2/triggers/${id}.json`, { method: 'PATCH', key: admin, body, query: { includes: 'all' } });
const read = async (id: number) =>
  (await api(`/v2/triggers/${id}.json`, { key: admin, query: { includes: 'all' } })).body;
const entriesOf = (id: number) =>
  rows<Record<string, unknown>>(
    `SELECT 'action' AS kind, id, type AS code, value, message, display_order, state, updated_at FROM trigger_actions WHERE trigger_id = $1
     UNION ALL SELECT 'condition', id, field, value, operator::text, 0, state, updated_at FROM trigger_conditions WHERE trigger_id = $1 ORDER BY 1, 2`,
    [id],
  );

beforeAll(async () => {
  ({ site, other, admin, inbox, quietInbox, high } = await triggerSite('shapes'));
  ticketType = (await api('/v2/tickettypes.json', { key: admin })).body.tickettypes[0].id;
  endpoint = (
    await api('/v2/webhookendpoints.json', {
      method: 'POST',
      key: admin,
      body: { webhookendpoint: { url: await hook.url, token: TOKEN } },
    })
  ).body.webhookendpoint.id;
});

afterAll(() => hook.close());

describe('trigger actions with their typed payloads', () => {
  it('are made for every action code as the samples write them, read back typed, and act on a ticket as the value form does', async () => {
    const [added, alsoAdded, removed] = [await tag('typed-a'), await tag('typed-b'), await tag('typed-gone')];
    const agent = site.users.agent.id;
    const follower = site.users.admin.id;
    const created = await post(
      sample(
        {
          name: 'Every typed action',
          description: 'd',
          state: 'active',
          type: 'Automatic',
          agentHasAccess: true,
          isShared: true,
          addToNewInboxes: false,
        },
        {
          triggeractions: [
            { id: null, type: 1, status: { id: WAITING } },
            { id: null, type: 2, priority: { id: high } },
            { id: null, type: 3, tickettype: { id: ticketType } },
            { id: null, type: 4, priority: null, user: { id: agent } },
            { id: null, type: 5, tags: [{ id: added }, { id: alsoAdded }] },
            { id: null, type: 6, tags: [{ id: removed }] },
            { id: null, type: 7, inbox: { id: inbox } },
            { id: null, type: 8, message: 'A typed note' },
            { id: null, type: 9, message: 'Typed reply on {{ticket.id}}' },
            { id: null, type: 10, webhookendpoint: { id: endpoint } },
            { id: null, type: 11, user: { id: follower } },
          ],
          conditions: [{ id: null, field: 11, operator: 1, value: 'typed payloads', matchRequirement: 'ALL' }],
        },
      ),
    );
    expect(created.status, created.text).toBe(201);
    const id = created.body.trigger.id as number;
    const none = {
      status: null,
      priority: null,
      tickettype: null,
      user: null,
      tags: null,
      inbox: null,
      webhookendpoint: null,
    };
    const actions = (created.body.included.triggeractions as any[]).sort((a, b) => a.id - b.id);
    expect(
      actions.map(
        ({ type, value, message, status, priority, tickettype, user, tags, inbox: moved, webhookendpoint }) => ({
          type,
          value,
          message,
          status,
          priority,
          tickettype,
          user,
          tags,
          inbox: moved,
          webhookendpoint,
        }),
      ),
    ).toEqual([
      { ...none, type: 1, value: String(WAITING), message: '', status: { id: WAITING, type: 'ticketstatuses' } },
      { ...none, type: 2, value: String(high), message: '', priority: { id: high, type: 'ticketpriorities' } },
      { ...none, type: 3, value: String(ticketType), message: '', tickettype: { id: ticketType, type: 'tickettypes' } },
      { ...none, type: 4, value: String(agent), message: '', user: { id: agent, type: 'users' } },
      {
        ...none,
        type: 5,
        value: `${added},${alsoAdded}`,
        message: '',
        tags: [
          { id: added, type: 'tags' },
          { id: alsoAdded, type: 'tags' },
        ],
      },
      { ...none, type: 6, value: String(removed), message: '', tags: [{ id: removed, type: 'tags' }] },
      { ...none, type: 7, value: String(inbox), message: '', inbox: { id: inbox, type: 'inboxes' } },
      { ...none, type: 8, value: '', message: 'A typed note' },
      { ...none, type: 9, value: '', message: 'Typed reply on {{ticket.id}}' },
      {
        ...none,
        type: 10,
        value: String(endpoint),
        message: '',
        webhookendpoint: { id: endpoint, type: 'webhookendpoints' },
      },
      { ...none, type: 11, value: String(follower), message: '', user: { id: follower, type: 'users' } },
    ]);
    expect(await read(id)).toEqual({ trigger: created.body.trigger, included: created.body.included });

    const made = await api('/v2/tickets.json', {
      method: 'POST',
      key: admin,
      body: {
        ticket: {
          subject: 'About typed payloads',
          inbox: quietInbox,
          customer: { email: 'typed@shapes.test' },
          message: 'Hello',
          tags: [{ id: removed }],
        },
      },
    });
    expect(made.status, made.text).toBe(201);
    const ticket = made.body.ticket.id as number;
    await drained(site.id);
    expect(
      await rows('SELECT status_id, priority_id, type_id, agent_id, inbox_id FROM tickets WHERE id = $1', [ticket]),
    ).toEqual([{ status_id: WAITING, priority_id: high, type_id: ticketType, agent_id: agent, inbox_id: inbox }]);
    expect(
      (
        await rows<{ tag_id: number }>('SELECT tag_id FROM ticket_tags WHERE ticket_id = $1 ORDER BY tag_id', [ticket])
      ).map((r) => r.tag_id),
    ).toEqual([added, alsoAdded]);
    expect(await rows('SELECT user_id FROM ticket_followers WHERE ticket_id = $1', [ticket])).toEqual([
      { user_id: follower },
    ]);
    const thread = (await api(`/v2/tickets/${ticket}/messages.json`, { key: admin })).body.messages as any[];
    expect(thread.find((m) => m.threadType === 'note')?.textBody).toBe('A typed note');
    expect(thread.filter((m) => m.threadType === 'message' && !m.customer).map((m) => m.textBody)).toEqual([
      `Typed reply on ${ticket}`,
    ]);
    expect(
      await rows("SELECT endpoint_id FROM webhook_deliveries WHERE ticket_id = $1 AND event = 'ticket.trigger'", [
        ticket,
      ]),
    ).toEqual([{ endpoint_id: endpoint }]);
  });

  it('sent back as they were read change nothing; sent back changed they keep their ids, and one left out is removed', async () => {
    const [first, second] = [await tag('kept-1'), await tag('kept-2')];
    const created = await post(
      sample(
        { name: 'Kept ids', type: 'Manual' },
        {
          triggeractions: [
            { id: null, type: 5, tags: [{ id: first }] },
            { id: null, type: 4, priority: null, user: { id: site.users.agent.id } },
            { id: null, type: 8, message: 'noted' },
          ],
          conditions: [{ id: null, field: 2, operator: 1, value: '@shapes.test', matchRequirement: 'ANY' }],
        },
      ),
    );
    expect(created.status, created.text).toBe(201);
    const id = created.body.trigger.id as number;
    const before = await entriesOf(id);
    const mark = await lastEventId(site.id);
    // the whole answer sent back, as a client that read it would
    const echoed = await patch(id, { ...(await read(id)), applyToExistingTickets: false });
    expect(echoed.status, echoed.text).toBe(200);
    expect(await entriesOf(id)).toEqual(before);
    expect(await eventsSince(site.id, mark)).toEqual([]);

    // the platform's update: its actions with their ids, one changed, one left out, one new
    const [tagging, assigning, noting] = (created.body.included.triggeractions as any[]).sort((a, b) => a.id - b.id);
    const changed = await patch(
      id,
      sample(
        { name: 'Kept ids', type: 'Manual' },
        {
          triggeractions: [
            { id: tagging.id, type: 5, tags: [{ id: first }, { id: second }] },
            { id: assigning.id, type: 4, priority: null, user: null },
            { id: null, type: 11, user: { id: site.users.owner.id } },
          ],
          conditions: [],
        },
      ),
    );
    expect(changed.status, changed.text).toBe(200);
    const after = await rows<{ id: number; type: number; value: string; state: string }>(
      'SELECT id, type, value, state FROM trigger_actions WHERE trigger_id = $1 ORDER BY id',
      [id],
    );
    expect(after).toEqual([
      { id: tagging.id, type: 5, value: `${first},${second}`, state: 'active' },
      { id: assigning.id, type: 4, value: '', state: 'active' },
      { id: noting.id, type: 8, value: '', state: 'deleted' },
      { id: expect.any(Number), type: 11, value: String(site.users.owner.id), state: 'active' },
    ]);
    expect(changed.body.included.triggeractions.find((a: any) => a.id === assigning.id)).toMatchObject({
      type: 4,
      user: null,
    });
    // an empty list changes nothing: the conditions are still there
    expect(
      await rows("SELECT count(*)::int AS n FROM trigger_conditions WHERE trigger_id = $1 AND state = 'active'", [id]),
    ).toEqual([{ n: 1 }]);
  });

  it("refuse another trigger's entries, another installation's records and a payload of another action, writing nothing", async () => {
    const mine = await tag('mine-only');
    const first = await post(
      sample(
        { name: 'Owner of the entries', type: 'Manual' },
        {
          triggeractions: [{ id: null, type: 5, tags: [{ id: mine }] }],
          conditions: [{ id: null, field: 11, operator: 1, value: 'x' }],
        },
      ),
    );
    const second = await post(
      sample({ name: 'Borrower', type: 'Manual' }, { triggeractions: [{ id: null, type: 8, message: 'mine' }] }),
    );
    const [foreignAction, foreignCondition] = [
      first.body.included.triggeractions[0].id,
      first.body.included.conditions[0].id,
    ];
    const theirs = other.users.admin.apiKey;
    const theirTag = await tag('theirs', theirs);
    const theirStatus = (
      await api('/v2/ticketstatuses.json', {
        method: 'POST',
        key: theirs,
        body: { ticketstatus: { name: 'Their status', code: 'active' } },
      })
    ).body.ticketstatus.id;
    const theirEndpoint = (
      await api('/v2/webhookendpoints.json', {
        method: 'POST',
        key: theirs,
        body: { webhookendpoint: { url: await hook.url, token: TOKEN } },
      })
    ).body.webhookendpoint.id;
    const borrower = second.body.trigger.id as number;
    const before = { first: await entriesOf(first.body.trigger.id), second: await entriesOf(borrower) };
    const count = await rows('SELECT count(*)::int AS n FROM triggers WHERE installation_id = $1', [site.id]);
    const mark = await lastEventId(site.id);
    const refused = async (request: Promise<any>, source: string, detail?: RegExp) =>
      expectError(await request, 400, source, detail);
    await refused(
      patch(
        borrower,
        sample({ name: 'Borrower' }, { triggeractions: [{ id: foreignAction, type: 5, tags: [{ id: mine }] }] }),
      ),
      'trigger.triggeractions[0].id',
    );
    await refused(
      patch(
        borrower,
        sample({ name: 'Borrower' }, { conditions: [{ id: foreignCondition, field: 11, operator: 1, value: 'y' }] }),
      ),
      'trigger.conditions[0].id',
    );
    await refused(
      post(
        sample(
          { name: 'Copy', type: 'Manual' },
          { triggeractions: [{ id: foreignAction, type: 5, tags: [{ id: mine }] }] },
        ),
      ),
      'trigger.triggeractions[0].id',
    );
    await refused(
      post(
        sample(
          { name: 'Theirs', type: 'Manual' },
          { triggeractions: [{ id: null, type: 6, tags: [{ id: mine }, { id: theirTag }] }] },
        ),
      ),
      'trigger.triggeractions[0].tags',
      /not every one/,
    );
    await refused(
      post(
        sample(
          { name: 'Theirs', type: 'Manual' },
          {
            triggeractions: [
              { id: null, type: 8, message: 'm' },
              { id: null, type: 1, status: { id: theirStatus } },
            ],
          },
        ),
      ),
      'trigger.triggeractions[1].status',
    );
    await refused(
      post(
        sample(
          { name: 'Theirs', type: 'Manual' },
          { triggeractions: [{ id: null, type: 11, user: { id: other.users.agent.id } }] },
        ),
      ),
      'trigger.triggeractions[0].user',
    );
    await refused(
      post(
        sample(
          { name: 'Theirs', type: 'Manual' },
          { triggeractions: [{ id: null, type: 10, webhookendpoint: { id: theirEndpoint } }] },
        ),
      ),
      'trigger.triggeractions[0].webhookendpoint',
    );
    await refused(
      post(
        sample(
          { name: 'Theirs', type: 'Manual' },
          { triggeractions: [{ id: null, type: 2, value: String(theirStatus) }] },
        ),
      ),
      'trigger.triggeractions[0].value',
    );
    await refused(
      patch(
        borrower,
        sample(
          { name: 'Borrower' },
          {
            triggeractions: [
              { id: null, type: 7, inbox: { id: (await api('/v2/inboxes.json', { key: theirs })).body.inboxes[0].id } },
            ],
          },
        ),
      ),
      'trigger.triggeractions[0].inbox',
    );
    await refused(
      post(
        sample(
          { name: 'Mixed', type: 'Manual' },
          { triggeractions: [{ id: null, type: 5, user: { id: site.users.agent.id } }] },
        ),
      ),
      'trigger.triggeractions[0].user',
      /takes `tags`/,
    );
    await refused(
      post(
        sample(
          { name: 'Mixed', type: 'Manual' },
          { triggeractions: [{ id: null, type: 8, message: 'm', tags: [{ id: mine }] }] },
        ),
      ),
      'trigger.triggeractions[0].tags',
      /message/,
    );
    expect(await entriesOf(first.body.trigger.id)).toEqual(before.first);
    expect(await entriesOf(borrower)).toEqual(before.second);
    expect(await rows('SELECT count(*)::int AS n FROM triggers WHERE installation_id = $1', [site.id])).toEqual(count);
    expect(await eventsSince(site.id, mark)).toEqual([]);
  });
});

describe('applyToExistingTickets beside the record', () => {
  it('true: the cron applies the trigger to the tickets there are; false: only to those whose events come', async () => {
    const ticket = async (subject: string) => {
      const made = await api('/v2/tickets.json', {
        method: 'POST',
        key: admin,
        body: { ticket: { subject, inbox: quietInbox, customer: { email: 'old@shapes.test' }, message: 'x' } },
      });
      expect(made.status, made.text).toBe(201);
      return made.body.ticket.id as number;
    };
    const [loudTicket, quietTicket] = [await ticket('Older loud beside'), await ticket('Older quiet beside')];
    await drained(site.id);
    const shape = (word: string, tagged: number) => ({
      triggeractions: [{ id: null, type: 5, tags: [{ id: tagged }] }],
      conditions: [{ id: null, field: 11, operator: 1, value: `${word} beside`, matchRequirement: 'ALL' }],
    });
    const quiet = await post(
      sample(
        { name: 'Beside, false', state: 'active', type: 'Automatic' },
        shape('quiet', await tag('beside-quiet')),
        false,
      ),
    );
    expect(quiet.status, quiet.text).toBe(201);
    expect(quiet.body.trigger.applyingToExistingTickets).toBe(false);
    const loud = await post(
      sample(
        { name: 'Beside, true', state: 'active', type: 'Automatic' },
        shape('loud', await tag('beside-loud')),
        true,
      ),
    );
    expect(loud.status, loud.text).toBe(201);
    expect(loud.body.trigger.applyingToExistingTickets).toBe(true);
    await runCron();
    await drained(site.id);
    const ranOn = async (id: number) =>
      (await rows<{ trigger_id: number }>('SELECT trigger_id FROM trigger_runs WHERE ticket_id = $1', [id])).map(
        (r) => r.trigger_id,
      );
    expect(await ranOn(loudTicket)).toEqual([loud.body.trigger.id]);
    expect(await ranOn(quietTicket)).toEqual([]);
    // on an update too, sent as the platform's client sends it
    const again = await patch(
      quiet.body.trigger.id,
      sample({ name: 'Beside, false' }, { triggeractions: [], conditions: [] }, true),
    );
    expect(again.status, again.text).toBe(200);
    expect(again.body.trigger.applyingToExistingTickets).toBe(true);
    await runCron();
    await drained(site.id);
    expect(await ranOn(quietTicket)).toEqual([quiet.body.trigger.id]);
  });
});
