// A trigger's create or update is one batch, its conditions and actions with it: a new one in one
// exchange with the database, an update in two (the stored trigger and its entries read first, as
// its rules and the whole-list write are over them), what it names checked in the batch; a refusal
// answers the same 4xx as ever and leaves nothing written (docs/connection-strategy.md).
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { rows } from '../support/db';
import { drained, eventsSince, lastEventId } from '../support/events';
import { withRoundTrips } from '../support/round-trips';
import { triggerSite } from './trigger-site';
import { eventually } from '../support/room';
import { receiver, TOKEN } from '../webhooks/receiver';

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;
let low: number;
let high: number;
let quietInbox: number;

beforeAll(async () => {
  ({ site, other, admin, low, high, quietInbox } = await triggerSite('trigger-trips'));
  // the credential is looked up once, then remembered: the requests below are the write alone
  await api('/v2/triggers.json', { key: admin });
});

const tripsOf = (path: string, method: string, trigger: Record<string, unknown>) =>
  withRoundTrips(path, { key: admin, method, body: { trigger } });
const patch = (id: number, trigger: Record<string, unknown>) => tripsOf(`/v2/triggers/${id}.json`, 'PATCH', trigger);

const tag = async (name: string) =>
  (await api('/v2/tags.json', { method: 'POST', key: admin, body: { name } })).body.tag.id as number;
const entriesOf = async (id: number) => [
  ...(await rows(
    `SELECT 'action' AS kind, type AS code, value, message, state FROM trigger_actions WHERE trigger_id = $1 ORDER BY id`,
    [id],
  )),
  ...(await rows(
    `SELECT 'condition' AS kind, field AS code, value, match_requirement AS "matchRequirement", state FROM trigger_conditions WHERE trigger_id = $1 ORDER BY id`,
    [id],
  )),
];

const made = async (trigger: Record<string, unknown>) => {
  const answer = await api('/v2/triggers.json', { method: 'POST', key: admin, body: { trigger } });
  expect(answer.status, answer.text).toBe(201);
  return answer.body.trigger.id as number;
};

describe('triggers in one batch', () => {
  it('creates a manual trigger in one exchange, and renames, switches and applies an automatic one to existing tickets in two', async () => {
    const manual = await tripsOf('/v2/triggers.json', 'POST', {
      name: 'Trip by hand',
      type: 'Manual',
      state: 'inactive',
    });
    expect(manual.answer.status, manual.answer.text).toBe(201);
    expect(manual.trips).toBe(1);
    expect(manual.answer.body.trigger).toMatchObject({ name: 'Trip by hand', type: 'Manual', state: 'inactive' });

    const id = await made({
      name: 'Trip low',
      state: 'inactive',
      conditions: [{ field: 11, operator: 1, value: 'trip' }],
      triggeractions: [{ type: 2, value: String(low) }],
    });
    const renamed = await patch(id, { name: 'Trip low priority', state: 'active' });
    expect(renamed.answer.status, renamed.answer.text).toBe(200);
    expect(renamed.trips).toBe(2);
    expect(renamed.answer.body.trigger).toMatchObject({ name: 'Trip low priority', state: 'active' });
    const applied = await patch(id, { applyToExistingTickets: true });
    expect(applied.answer.status, applied.answer.text).toBe(200);
    expect(applied.trips).toBe(2);
    expect(applied.answer.body.trigger.applyingToExistingTickets).toBe(true);
  });

  it('refuses switching on a trigger naming a deleted tag, and one assigning to a collaborator, in the batch, writing nothing', async () => {
    const tag = (await api('/v2/tags.json', { method: 'POST', key: admin, body: { name: 'trip-doomed' } })).body.tag
      .id as number;
    const doomed = await made({
      name: 'Trip doomed',
      state: 'inactive',
      conditions: [{ field: 11, operator: 1, value: 'doomed' }],
      triggeractions: [{ type: 5, value: String(tag) }],
    });
    const agent = site.users.agent.id;
    const assigning = await made({
      name: 'Trip assigning',
      state: 'inactive',
      conditions: [{ field: 11, operator: 1, value: 'assign' }],
      triggeractions: [{ type: 4, value: String(agent) }],
    });
    expect((await api(`/v2/tags/${tag}.json`, { method: 'DELETE', key: admin })).status).toBe(204);
    const [action] = await rows<{ id: number }>(`SELECT id FROM trigger_actions WHERE trigger_id = $1`, [doomed]);
    const [assignment] = await rows<{ id: number }>(`SELECT id FROM trigger_actions WHERE trigger_id = $1`, [
      assigning,
    ]);
    await rows(`UPDATE users SET role = 'collaborator' WHERE id = $1`, [agent]);
    try {
      const mark = await lastEventId(site.id);
      const switched = await patch(doomed, { name: 'Trip on', state: 'active' });
      expect(switched.answer.status, switched.answer.text).toBe(400);
      expect(switched.answer.body.errors).toEqual([
        {
          code: 'invalid',
          source: 'trigger.triggeractions',
          detail: `action ${action!.id} (add tags): some of tags ${tag} are not here`,
        },
      ]);
      expect(switched.trips).toBe(2);
      // switched off, it may name what is gone; a collaborator it may not name even so
      const renamed = await patch(assigning, { name: 'Trip renamed' });
      expect(renamed.answer.status, renamed.answer.text).toBe(400);
      expect(renamed.answer.body.errors).toEqual([
        {
          code: 'invalid',
          source: 'trigger.triggeractions',
          detail: `action ${assignment!.id} (assign agent (empty: unassign)): user ${agent} is a collaborator: a ticket is assigned to an owner, admin or agent`,
        },
      ]);
      expect(renamed.trips).toBe(2);
      expect(await eventsSince(site.id, mark)).toEqual([]);
      expect(
        await rows(`SELECT name, state FROM triggers WHERE id = ANY($1) ORDER BY id`, [[doomed, assigning]]),
      ).toEqual([
        { name: 'Trip doomed', state: 'inactive' },
        { name: 'Trip assigning', state: 'inactive' },
      ]);
    } finally {
      await rows(`UPDATE users SET role = 'agent' WHERE id = $1`, [agent]);
    }
  });

  it("refuses what the stored trigger alone decides after reading it, and another installation's trigger (404) from the batch, writing nothing", async () => {
    const [system] = await rows<{ id: number }>(
      `SELECT id FROM triggers WHERE installation_id = $1 AND is_system ORDER BY id LIMIT 1`,
      [site.id],
    );
    const manual = await made({ name: 'Trip manual', type: 'Manual' });
    const theirs = (
      await api('/v2/triggers.json', {
        method: 'POST',
        key: other.users.admin.apiKey,
        body: { trigger: { name: 'Trip theirs', type: 'Manual' } },
      })
    ).body.trigger.id as number;
    const mark = await lastEventId(site.id);
    for (const [id, body, status, source, detail, trips] of [
      [
        system!.id,
        { name: 'Mine now' },
        400,
        'trigger.name',
        `trigger ${system!.id} is a system trigger: it can only be switched on or off (\`state\`)`,
        1,
      ],
      [
        manual,
        { applyToExistingTickets: true },
        400,
        'trigger.applyToExistingTickets',
        'a manual trigger is applied by hand: PATCH /v2/tickets/triggerapply.json',
        1,
      ],
      [
        manual,
        { name: 'Trip automatic', type: 'Automatic' },
        400,
        'trigger.triggeractions',
        'an automatic trigger needs at least one action',
        1,
      ],
      [theirs, { name: 'Trip mine' }, 404, 'id', `trigger ${theirs} not found`, 2],
      // what its lists name is not looked at: it is not there
      [
        theirs,
        { triggeractions: [{ type: 5, user: { id: site.users.agent.id } }] },
        404,
        'id',
        `trigger ${theirs} not found`,
        2,
      ],
    ] as const) {
      const refused = await patch(id, body);
      expect(refused.answer.status, refused.answer.text).toBe(status);
      expect(refused.answer.body.errors).toEqual([{ code: status === 404 ? 'notFound' : 'invalid', source, detail }]);
      expect(refused.trips).toBe(trips);
    }
    expect(await eventsSince(site.id, mark)).toEqual([]);
    expect(await rows(`SELECT name FROM triggers WHERE id = ANY($1) ORDER BY id`, [[manual, theirs]])).toEqual([
      { name: 'Trip manual' },
      { name: 'Trip theirs' },
    ]);
  });

  it('creates an automatic trigger with its conditions and actions in one exchange, with their events', async () => {
    const mark = await lastEventId(site.id);
    const made = await withRoundTrips('/v2/triggers.json', {
      key: admin,
      method: 'POST',
      query: { includes: 'all' },
      body: {
        trigger: {
          name: 'Trip parts',
          conditions: [
            { field: 11, operator: 1, value: 'parts' },
            { field: 2, operator: 1, value: '@parts.test', matchRequirement: 'ANY' },
          ],
          triggeractions: [
            { type: 2, value: String(low) },
            { type: 8, message: 'noted', displayOrder: 1 },
          ],
        },
      },
    });
    expect(made.answer.status, made.answer.text).toBe(201);
    expect(made.trips).toBe(1);
    const id = made.answer.body.trigger.id as number;
    expect(await entriesOf(id)).toEqual([
      { kind: 'action', code: 2, value: String(low), message: '', state: 'active' },
      { kind: 'action', code: 8, value: '', message: 'noted', state: 'active' },
      { kind: 'condition', code: 11, value: 'parts', matchRequirement: 'ALL', state: 'active' },
      { kind: 'condition', code: 2, value: '@parts.test', matchRequirement: 'ANY', state: 'active' },
    ]);
    const events = (await eventsSince(site.id, mark)).map((e) => [
      e.recordType,
      e.kind,
      (e.data.parent as { id?: number } | undefined)?.id ?? null,
    ]);
    expect(events).toEqual([
      ['triggers', 'created', null],
      ['conditions', 'created', id],
      ['conditions', 'created', id],
      ['triggeractions', 'created', id],
      ['triggeractions', 'created', id],
    ]);
  });

  it('refuses a new trigger whose new entries cannot run in the batch, naming the ids the batch gave them, writing nothing', async () => {
    const agent = site.users.agent.id;
    await rows(`UPDATE users SET role = 'collaborator' WHERE id = $1`, [agent]);
    try {
      const mark = await lastEventId(site.id);
      const [before] = await rows<{ condition: number; action: number }>(
        `SELECT (SELECT max(id) FROM trigger_conditions)::int AS condition, (SELECT max(id) FROM trigger_actions)::int AS action`,
      );
      const refused = async (trigger: Record<string, unknown>, kind: 'condition' | 'action', rest: RegExp) => {
        const answer = await tripsOf('/v2/triggers.json', 'POST', { name: 'Trip refused', ...trigger });
        expect(answer.answer.status, answer.answer.text).toBe(400);
        expect(answer.trips).toBe(1);
        const [error] = answer.answer.body.errors as { source: string; detail: string }[];
        const named = new RegExp(`^${kind} (\\d+) `).exec(error!.detail);
        expect(named, error!.detail).not.toBeNull();
        // the id the rolled-back insert was given: after every entry there was
        expect(Number(named![1])).toBeGreaterThan(kind === 'condition' ? before!.condition : before!.action);
        expect(error).toMatchObject({
          code: 'invalid',
          source: `trigger.${kind === 'condition' ? 'conditions' : 'triggeractions'}`,
        });
        expect(error!.detail.slice(named![0].length)).toMatch(rest);
      };
      await refused(
        {
          triggeractions: [
            { type: 2, value: String(low) },
            { type: 4, value: String(agent) },
          ],
        },
        'action',
        new RegExp(
          `^\\(assign agent \\(empty: unassign\\)\\): user ${agent} is a collaborator: a ticket is assigned to an owner, admin or agent$`,
        ),
      );
      await refused(
        {
          conditions: [
            { field: 11, operator: 1, value: 'x' },
            { field: 1, operator: 5, value: '1' },
          ],
          triggeractions: [{ type: 2, value: String(low) }],
        },
        'condition',
        /^\(.*\): the operator does not fit the field/,
      );
      expect(await eventsSince(site.id, mark)).toEqual([]);
      expect(
        await rows(`SELECT count(*)::int AS n FROM triggers WHERE installation_id = $1 AND name = 'Trip refused'`, [
          site.id,
        ]),
      ).toEqual([{ n: 0 }]);
    } finally {
      await rows(`UPDATE users SET role = 'agent' WHERE id = $1`, [agent]);
    }
  });

  it('updates the lists whole in two exchanges: kept, changed, left out and new entries; sent back as read, nothing', async () => {
    const [first, second] = [await tag('trip-kept-1'), await tag('trip-kept-2')];
    const id = await made({
      name: 'Trip whole',
      type: 'Manual',
      conditions: [{ field: 11, operator: 1, value: 'whole' }],
      triggeractions: [
        { type: 5, value: String(first) },
        { type: 4, value: String(site.users.agent.id) },
        { type: 8, message: 'noted' },
      ],
    });
    const [tagging, assigning, noting] = await rows<{ id: number }>(
      `SELECT id FROM trigger_actions WHERE trigger_id = $1 ORDER BY id`,
      [id],
    );
    const mark = await lastEventId(site.id);
    const changed = await patch(id, {
      name: 'Trip whole',
      triggeractions: [
        { id: tagging!.id, type: 5, tags: [{ id: first }, { id: second }] },
        { id: assigning!.id, priority: null, user: null },
        { id: null, type: 11, user: { id: site.users.owner.id } },
      ],
      conditions: [],
    });
    expect(changed.answer.status, changed.answer.text).toBe(200);
    expect(changed.trips).toBe(2);
    expect(
      await rows(`SELECT id, type, value, state FROM trigger_actions WHERE trigger_id = $1 ORDER BY id`, [id]),
    ).toEqual([
      { id: tagging!.id, type: 5, value: `${first},${second}`, state: 'active' },
      { id: assigning!.id, type: 4, value: '', state: 'active' },
      { id: noting!.id, type: 8, value: '', state: 'deleted' },
      { id: expect.any(Number), type: 11, value: String(site.users.owner.id), state: 'active' },
    ]);
    expect(
      await rows(`SELECT count(*)::int AS n FROM trigger_conditions WHERE trigger_id = $1 AND state = 'active'`, [id]),
    ).toEqual([{ n: 1 }]);
    const events = (await eventsSince(site.id, mark)).map((e) => [e.recordType, e.kind, e.recordId]);
    expect(events).toEqual(
      expect.arrayContaining([
        ['triggeractions', 'updated', tagging!.id],
        ['triggeractions', 'updated', assigning!.id],
        ['triggeractions', 'deleted', noting!.id],
        ['triggeractions', 'created', expect.any(Number)],
      ]),
    );
    expect(events).toHaveLength(4);

    const stored = (await api(`/v2/triggers/${id}.json`, { key: admin, query: { includes: 'all' } })).body;
    const again = await lastEventId(site.id);
    const updatedAt = await rows(`SELECT id, updated_at FROM trigger_actions WHERE trigger_id = $1 ORDER BY id`, [id]);
    const echoed = await withRoundTrips(`/v2/triggers/${id}.json`, {
      key: admin,
      method: 'PATCH',
      body: { trigger: { name: 'Trip whole' }, included: stored.included },
    });
    expect(echoed.answer.status, echoed.answer.text).toBe(200);
    expect(echoed.trips).toBe(2);
    expect(await eventsSince(site.id, again)).toEqual([]);
    expect(await rows(`SELECT id, updated_at FROM trigger_actions WHERE trigger_id = $1 ORDER BY id`, [id])).toEqual(
      updatedAt,
    );
  });

  it("refuses in the batch what the entries name, another trigger's entry, and a new entry that cannot run, writing nothing", async () => {
    const doomed = await tag('trip-gone');
    const id = await made({
      name: 'Trip entries',
      conditions: [{ field: 11, operator: 1, value: 'entries' }],
      triggeractions: [{ type: 2, value: String(low) }],
    });
    const elsewhere = await made({
      name: 'Trip elsewhere',
      type: 'Manual',
      triggeractions: [{ type: 8, message: 'mine' }],
    });
    const [kept] = await rows<{ id: number }>(`SELECT id FROM trigger_actions WHERE trigger_id = $1`, [id]);
    const [theirs] = await rows<{ id: number }>(`SELECT id FROM trigger_actions WHERE trigger_id = $1`, [elsewhere]);
    expect((await api(`/v2/tags/${doomed}.json`, { method: 'DELETE', key: admin })).status).toBe(204);
    const agent = site.users.agent.id;
    const entries = () =>
      rows(`SELECT id, type, value, state, updated_at FROM trigger_actions WHERE trigger_id = ANY($1) ORDER BY id`, [
        [id, elsewhere],
      ]);
    const before = await entries();
    await rows(`UPDATE users SET role = 'collaborator' WHERE id = $1`, [agent]);
    try {
      const mark = await lastEventId(site.id);
      const tagsGone = await patch(id, { triggeractions: [{ id: kept!.id }, { type: 5, tags: [{ id: doomed }] }] });
      expect(tagsGone.answer.body.errors).toEqual([
        {
          code: 'invalid',
          source: 'trigger.triggeractions[1].tags',
          detail: `not every one of tags ${doomed} is here`,
        },
      ]);
      expect(tagsGone.trips).toBe(2);
      const borrowed = await patch(id, { triggeractions: [{ id: theirs!.id, type: 8, message: 'mine now' }] });
      expect(borrowed.answer.body.errors).toEqual([
        { code: 'invalid', source: 'trigger.triggeractions[0].id', detail: `no triggeractions ${theirs!.id} here` },
      ]);
      expect(borrowed.trips).toBe(2);
      const assigning = await patch(id, { triggeractions: [{ id: kept!.id }, { type: 4, user: { id: agent } }] });
      expect(assigning.answer.status, assigning.answer.text).toBe(400);
      expect(assigning.answer.body.errors[0].detail).toMatch(
        new RegExp(`^action \\d+ \\(assign agent \\(empty: unassign\\)\\): user ${agent} is a collaborator`),
      );
      expect(Number(/^action (\d+)/.exec(assigning.answer.body.errors[0].detail)![1])).toBeGreaterThan(theirs!.id);
      expect(assigning.trips).toBe(2);
      expect(await eventsSince(site.id, mark)).toEqual([]);
      expect(await entries()).toEqual(before);
    } finally {
      await rows(`UPDATE users SET role = 'agent' WHERE id = $1`, [agent]);
    }
  });
});

describe('a manual trigger applied by hand in two exchanges', () => {
  const ticket = async (email: string) => {
    const answer = await api('/v2/tickets.json', {
      method: 'POST',
      key: admin,
      body: {
        ticket: { subject: 'Apply me', inbox: quietInbox, customer: { email, firstName: 'Ada' }, message: 'Hello' },
      },
    });
    expect(answer.status, answer.text).toBe(201);
    await drained(site.id);
    return answer.body.ticket.id as number;
  };
  const apply = async (id: number, trigger: number) => {
    // the credential remembered afresh (for 30 s): a far run's slow steps before may outlast it, and the count is the apply's alone
    await api('/v2/triggers.json', { key: admin });
    return withRoundTrips(`/v2/tickets/${id}/triggerapply.json`, {
      key: admin,
      method: 'PATCH',
      body: { trigger: { id: trigger } },
    });
  };
  /** what an application wrote, the ids of the trigger and the records it made left out */
  const written = async (mark: number) =>
    (await eventsSince(site.id, mark)).map((e) => [
      e.recordType,
      e.kind,
      e.actorSystem,
      Object.keys(e.data).sort().join(','),
      JSON.stringify((e.data as { changes?: unknown }).changes ?? null),
    ]);

  it('writes what its actions do, with a time condition or without, the same events, and answers the ticket', async () => {
    const kept = await tag('trip-apply-kept');
    const gone = await tag('trip-apply-gone');
    const actions = [
      { type: 2, value: String(high) },
      { type: 5, value: `${kept},${gone}` },
      { type: 6, value: String(gone) },
      { type: 8, message: 'noted' },
      { type: 9, message: 'Hello {{customer.firstName}}, ticket {{ticket.id}}' },
      { type: 11, value: String(site.users.agent.id) },
    ];
    const planned = await made({
      name: 'Trip apply',
      type: 'Manual',
      conditions: [{ field: 11, operator: 1, value: 'apply' }],
      triggeractions: actions,
    });
    // the same, with a time condition that holds (its tickets' times checked in the batch too)
    const timed = await made({
      name: 'Trip apply timed',
      type: 'Manual',
      conditions: [
        { field: 11, operator: 1, value: 'apply' },
        { field: 15, operator: 5, value: '0' },
      ],
      triggeractions: actions,
    });
    const [one, two] = [await ticket('one@trip-apply.test'), await ticket('two@trip-apply.test')];

    let mark = await lastEventId(site.id);
    const applied = await apply(one, planned);
    expect(applied.answer.status, applied.answer.text).toBe(200);
    expect(applied.trips).toBe(2);
    expect(applied.answer.body.ticket.priority).toEqual({ id: high, type: 'ticketpriorities' });
    const plannedEvents = await written(mark);
    expect(plannedEvents.map(([type, kind]) => `${type} ${kind}`)).toEqual(
      expect.arrayContaining([
        'tickets updated',
        'tickets linked',
        'tickets unlinked',
        'messages created',
        'tickets triggered',
      ]),
    );

    mark = await lastEventId(site.id);
    const byTime = await apply(two, timed);
    expect(byTime.answer.status, byTime.answer.text).toBe(200);
    expect(byTime.trips).toBe(2);
    expect(plannedEvents).toEqual(await written(mark));

    await drained(site.id);
    for (const id of [one, two]) {
      const thread = (await api(`/v2/tickets/${id}/messages.json`, { key: admin })).body.messages as {
        threadType: string;
        textBody: string;
        customer: unknown;
      }[];
      expect(thread.filter((m) => !m.customer).map((m) => [m.threadType, m.textBody])).toEqual([
        ['note', 'noted'],
        ['message', `Hello Ada, ticket ${id}`],
      ]);
      const stored = (await api(`/v2/tickets/${id}.json`, { key: admin, query: { includes: 'tags,followers' } })).body
        .ticket;
      expect(stored.tags.map((t: { id: number }) => t.id)).toEqual([kept]);
      expect(stored.followers.map((u: { id: number }) => u.id)).toContain(site.users.agent.id);
      const lines = (await api(`/v2/tickets/${id}/activities.json`, { key: admin, query: { pageSize: 100 } })).body
        .ticketactivities as { eventType: string }[];
      expect(lines.filter((l) => l.eventType === 'ticket.trigger')).toHaveLength(1);
    }
    expect(
      await rows(`SELECT ticket_id, depth FROM trigger_chain_links WHERE ticket_id = ANY($1) ORDER BY ticket_id`, [
        [one, two],
      ]),
    ).toEqual([
      { ticket_id: one, depth: 1 },
      { ticket_id: two, depth: 1 },
    ]);

    const many = await withRoundTrips('/v2/tickets/triggerapply.json', {
      key: admin,
      method: 'PATCH',
      body: { trigger: { id: planned }, tickets: [two, one] },
    });
    expect(many.answer.status, many.answer.text).toBe(200);
    expect(many.answer.body).toEqual({ affected: 2, ids: [one, two].sort((a, b) => a - b) });
    expect(many.trips).toBe(2);
  });

  it('applies one with business hours, one calling a webhook, and refuses a status needing a custom field, in two exchanges each', async () => {
    const hours = (await api('/v2/businesshours.json', { key: admin })).body.businesshours[0].id as number;
    const hook = receiver();
    try {
      const endpoint = await api('/v2/webhookendpoints.json', {
        method: 'POST',
        key: admin,
        body: {
          webhookendpoint: {
            url: await hook.url,
            token: TOKEN,
            allEvents: false,
            webhookendpointevents: [{ code: 'customer.deleted' }],
          },
        },
      });
      expect(endpoint.status, endpoint.text).toBe(201);
      const inHours = await made({
        name: 'Trip apply in hours',
        type: 'Manual',
        businesshours: { id: hours },
        conditions: [{ field: 15, operator: 6, value: '1000' }],
        triggeractions: [{ type: 2, value: String(high) }],
      });
      const calling = await made({
        name: 'Trip apply calling',
        type: 'Manual',
        triggeractions: [
          { type: 2, value: String(low) },
          { type: 10, value: String(endpoint.body.webhookendpoint.id) },
        ],
      });
      const id = await ticket('hours@trip-apply.test');
      const timed = await apply(id, inHours);
      expect(timed.answer.status, timed.answer.text).toBe(200);
      expect(timed.trips).toBe(2);
      expect(timed.answer.body.ticket.priority).toEqual({ id: high, type: 'ticketpriorities' });
      const called = await apply(id, calling);
      expect(called.answer.status, called.answer.text).toBe(200);
      expect(called.trips).toBe(2);
      // the run's delivery to the endpoint it names (which wants no ticket event), with the ticket as the actions left it
      const [delivery] = await eventually(async () => (hook.requests.length ? hook.requests : undefined));
      expect(delivery!.json).toMatchObject({
        event: 'ticket.trigger',
        trigger: { id: calling, type: 'triggers', name: 'Trip apply calling' },
        ticket: { id, priority: { id: low } },
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(hook.requests).toHaveLength(1);
    } finally {
      await hook.close();
    }
    const field = await api('/v2/customfields.json', {
      method: 'POST',
      key: admin,
      body: { customfield: { agentLabel: `Trip cause ${Date.now()}`, kind: 'text', agentRequired: true } },
    });
    expect(field.status, field.text).toBe(201);
    try {
      const solving = await made({
        name: 'Trip apply solving',
        type: 'Manual',
        triggeractions: [
          { type: 2, value: String(high) },
          { type: 1, value: '5' },
        ],
      });
      const id = await ticket('solve@trip-apply.test');
      const mark = await lastEventId(site.id);
      const refused = await apply(id, solving);
      expect(refused.answer.status, refused.answer.text).toBe(409);
      expect(refused.answer.body.errors).toEqual([
        {
          code: 'conflict',
          source: 'trigger',
          detail: `trigger ${solving} could not act on ticket ${id}: custom field ${field.body.customfield.id} ("${field.body.customfield.agentLabel}") is required: give ticket ${id} a value of it before it is solved or closed`,
        },
      ]);
      expect(refused.trips).toBe(2);
      expect(await eventsSince(site.id, mark)).toEqual([]);
    } finally {
      await api(`/v2/customfields/${field.body.customfield.id}.json`, { method: 'DELETE', key: admin });
    }
  });

  it('refuses in the batch conditions that do not hold, a trigger naming what is gone, a collaborator to assign; a ticket not here after the read; writing nothing', async () => {
    const doomed = await tag('trip-apply-doomed');
    const agent = site.users.agent.id;
    const matching = await made({
      name: 'Trip apply picky',
      type: 'Manual',
      conditions: [{ field: 11, operator: 1, value: 'never here' }],
      triggeractions: [{ type: 2, value: String(high) }],
    });
    const tagging = await made({
      name: 'Trip apply doomed',
      type: 'Manual',
      triggeractions: [
        { type: 2, value: String(high) },
        { type: 5, value: String(doomed) },
      ],
    });
    const assigning = await made({
      name: 'Trip apply assigning',
      type: 'Manual',
      triggeractions: [
        { type: 2, value: String(high) },
        { type: 4, value: String(agent) },
      ],
    });
    const [first, second] = [await ticket('three@trip-apply.test'), await ticket('four@trip-apply.test')];
    const [action] = await rows<{ id: number }>(`SELECT id FROM trigger_actions WHERE trigger_id = $1 AND type = 5`, [
      tagging,
    ]);
    expect((await api(`/v2/tags/${doomed}.json`, { method: 'DELETE', key: admin })).status).toBe(204);
    const theirs = (
      await api('/v2/tickets.json', {
        method: 'POST',
        key: other.users.admin.apiKey,
        body: {
          ticket: {
            subject: 'Theirs',
            inbox: (await api('/v2/inboxes.json', { key: other.users.admin.apiKey })).body.inboxes[0].id,
            customer: { email: 'x@trip-apply.test' },
          },
        },
      })
    ).body.ticket.id as number;
    await rows(`UPDATE users SET role = 'collaborator' WHERE id = $1`, [agent]);
    try {
      const mark = await lastEventId(site.id);
      const before = await rows(`SELECT id, priority_id, updated_at FROM tickets WHERE id = ANY($1) ORDER BY id`, [
        [first, second],
      ]);
      for (const [id, trigger, status, source, detail, trips] of [
        [first, matching, 409, 'trigger', `trigger ${matching}'s conditions do not hold for ticket ${first}`, 2],
        [
          first,
          tagging,
          409,
          'trigger',
          `trigger ${tagging} cannot run until it is fixed: action ${action!.id} (add tags): some of tags ${doomed} are not here`,
          2,
        ],
        [
          second,
          assigning,
          409,
          'trigger',
          `trigger ${assigning} could not act on ticket ${second}: user ${agent} is a collaborator: a ticket is assigned to an owner, admin or agent`,
          2,
        ],
        [theirs, assigning, 404, 'tickets', `ticket ${theirs} not found`, 1],
      ] as const) {
        const refused = await apply(id, trigger);
        expect(refused.answer.status, refused.answer.text).toBe(status);
        expect(refused.answer.body.errors).toEqual([
          { code: status === 404 ? 'notFound' : 'conflict', source, detail },
        ]);
        expect(refused.trips).toBe(trips);
      }
      const many = await withRoundTrips('/v2/tickets/triggerapply.json', {
        key: admin,
        method: 'PATCH',
        body: { trigger: { id: assigning }, tickets: [first, second] },
      });
      expect(many.answer.status, many.answer.text).toBe(409);
      expect(many.answer.body.errors).toEqual([
        {
          code: 'conflict',
          source: 'trigger',
          detail: `trigger ${assigning} could not act on ticket ${first}: user ${agent} is a collaborator: a ticket is assigned to an owner, admin or agent`,
        },
      ]);
      expect(many.trips).toBe(2);
      expect(await eventsSince(site.id, mark)).toEqual([]);
      expect(
        await rows(`SELECT id, priority_id, updated_at FROM tickets WHERE id = ANY($1) ORDER BY id`, [[first, second]]),
      ).toEqual(before);
    } finally {
      await rows(`UPDATE users SET role = 'agent' WHERE id = $1`, [agent]);
    }
  });
});

describe('a trigger deleted in one round trip', () => {
  it('deletes one in one exchange; a system trigger is a 409 in one, and stays', async () => {
    const system = await made({ name: `System ${Date.now()}`, type: 'Manual' });
    await rows('UPDATE triggers SET is_system = true WHERE id = $1', [system]);
    const remove = (id: number) => withRoundTrips(`/v2/triggers/${id}.json`, { key: admin, method: 'DELETE' });
    const refused = await remove(system);
    expect(refused.answer.status).toBe(409);
    expect(refused.answer.body.errors).toEqual([
      {
        code: 'conflict',
        source: 'id',
        detail: `trigger ${system} is a system trigger: switch it off (state: inactive) instead`,
      },
    ]);
    expect(refused.trips).toBe(1);
    expect(await rows('SELECT state FROM triggers WHERE id = $1', [system])).not.toEqual([{ state: 'deleted' }]);
    const id = await made({ name: `Short-lived ${Date.now()}`, type: 'Manual' });
    const gone = await remove(id);
    expect(gone.answer.status, gone.answer.text).toBe(204);
    expect(gone.trips).toBe(1);
  });
});

describe('triggers updated in bulk', () => {
  const bulk = (ids: number[], trigger: Record<string, unknown>) =>
    withRoundTrips('/v2/triggers/update.json', {
      key: admin,
      method: 'PATCH',
      query: { filter: JSON.stringify({ id: { $in: ids } }) },
      body: { trigger },
    });

  it('renames in one exchange; switching on or changing the type reads the selected triggers first: two', async () => {
    const first = await made({
      name: 'Bulk trip one',
      type: 'Manual',
      state: 'inactive',
      triggeractions: [{ type: 2, value: String(high) }],
    });
    const second = await made({
      name: 'Bulk trip two',
      type: 'Manual',
      state: 'inactive',
      triggeractions: [{ type: 2, value: String(low) }],
    });
    const described = await bulk([first, second], { description: 'both of them' });
    expect(described.answer.status, described.answer.text).toBe(200);
    expect(described.trips).toBe(1);
    const switched = await bulk([first, second], { state: 'active' });
    expect(switched.answer.status, switched.answer.text).toBe(200);
    expect(switched.answer.body.affected).toBe(2);
    expect(switched.trips).toBe(2);
    expect(
      await rows(`SELECT description, state FROM triggers WHERE id = ANY($1) ORDER BY id`, [[first, second]]),
    ).toEqual([
      { description: 'both of them', state: 'active' },
      { description: 'both of them', state: 'active' },
    ]);
  });

  it('refuses in the batch a selected trigger naming a deleted tag, a system trigger rewritten, and in the Worker what the stored triggers alone decide: nothing written', async () => {
    const doomedTag = await tag(`bulk-doomed-${Date.now()}`);
    const fine = await made({
      name: 'Bulk fine',
      state: 'inactive',
      conditions: [{ field: 11, operator: 1, value: 'fine' }],
      triggeractions: [{ type: 2, value: String(low) }],
    });
    const doomed = await made({
      name: 'Bulk doomed',
      state: 'inactive',
      conditions: [{ field: 11, operator: 1, value: 'doomed' }],
      triggeractions: [{ type: 5, value: String(doomedTag) }],
    });
    const bare = await made({ name: 'Bulk bare', type: 'Manual', state: 'inactive' });
    expect((await api(`/v2/tags/${doomedTag}.json`, { method: 'DELETE', key: admin })).status).toBe(204);
    const [action] = await rows<{ id: number }>(`SELECT id FROM trigger_actions WHERE trigger_id = $1`, [doomed]);
    const [system] = await rows<{ id: number }>(
      `SELECT id FROM triggers WHERE installation_id = $1 AND is_system ORDER BY id LIMIT 1`,
      [site.id],
    );
    const before = await rows(
      `SELECT id, name, description, type, state, updated_at FROM triggers WHERE id = ANY($1) ORDER BY id`,
      [[fine, doomed, bare, system!.id]],
    );
    const mark = await lastEventId(site.id);
    const switched = await bulk([fine, doomed], { state: 'active' });
    expect(switched.answer.status, switched.answer.text).toBe(400);
    expect(switched.answer.body.errors).toEqual([
      {
        code: 'invalid',
        source: 'trigger.triggeractions',
        detail: `trigger ${doomed}: action ${action!.id} (add tags): some of tags ${doomedTag} are not here`,
      },
    ]);
    expect(switched.trips).toBe(2);
    const automatic = await bulk([bare], { type: 'Automatic' });
    expect(automatic.answer.body.errors).toEqual([
      {
        code: 'invalid',
        source: 'trigger.triggeractions',
        detail: `trigger ${bare}: an automatic trigger needs at least one action`,
      },
    ]);
    expect(automatic.trips).toBe(1);
    // the system triggers' guard first, before what the rules say of the others
    const both = await bulk([bare, system!.id], { type: 'Automatic', name: 'Hijacked too' });
    expect(both.answer.body.errors).toEqual([
      {
        code: 'invalid',
        source: 'trigger.name',
        detail: `trigger ${system!.id} is a system trigger: it can only be switched on or off (\`state\`)`,
      },
    ]);
    expect(both.trips).toBe(1);
    const rewritten = await bulk([fine, system!.id], { name: 'Hijacked' });
    expect(rewritten.answer.body.errors).toEqual([
      {
        code: 'invalid',
        source: 'trigger.name',
        detail: `trigger ${system!.id} is a system trigger: it can only be switched on or off (\`state\`)`,
      },
    ]);
    expect(rewritten.trips).toBe(1);
    expect(
      await rows(`SELECT id, name, description, type, state, updated_at FROM triggers WHERE id = ANY($1) ORDER BY id`, [
        [fine, doomed, bare, system!.id],
      ]),
    ).toEqual(before);
    expect(await eventsSince(site.id, mark)).toEqual([]);
  });
});

describe('triggers deleted in bulk', () => {
  it('deletes the selected triggers in one exchange; a selection holding a system trigger is a 409 in one naming it, and deletes none', async () => {
    const one = await made({ name: 'Bulk gone one', type: 'Manual', state: 'inactive' });
    const two = await made({ name: 'Bulk gone two', type: 'Manual', state: 'inactive' });
    const [system] = await rows<{ id: number }>(
      `SELECT id FROM triggers WHERE installation_id = $1 AND is_system ORDER BY id LIMIT 1`,
      [site.id],
    );
    const remove = (ids: number[]) =>
      withRoundTrips('/v2/triggers/delete.json', {
        key: admin,
        method: 'DELETE',
        query: { filter: JSON.stringify({ id: { $in: ids } }) },
      });
    const mark = await lastEventId(site.id);
    const refused = await remove([one, system!.id, two]);
    expect(refused.answer.status, refused.answer.text).toBe(409);
    expect(refused.answer.body.errors).toEqual([
      {
        code: 'conflict',
        source: 'id',
        detail: `trigger ${system!.id} is a system trigger: switch it off (state: inactive) instead`,
      },
    ]);
    expect(refused.trips).toBe(1);
    expect(await eventsSince(site.id, mark)).toEqual([]);
    const gone = await remove([one, two]);
    expect(gone.answer.status, gone.answer.text).toBe(200);
    expect(gone.answer.body).toEqual({
      affected: 2,
      ids: [one, two].sort((a, b) => a - b),
      jobId: null,
      dryRun: false,
    });
    expect(gone.trips).toBe(1);
    expect(
      await rows(`SELECT id, state FROM triggers WHERE id = ANY($1) ORDER BY id`, [[one, two, system!.id]]),
    ).toEqual(
      [
        { id: one, state: 'deleted' },
        { id: two, state: 'deleted' },
        { id: system!.id, state: 'active' },
      ].sort((a, b) => a.id - b.id),
    );
    expect((await eventsSince(site.id, mark)).map((e) => `${e.recordId} ${e.kind}`).sort()).toEqual(
      [`${one} deleted`, `${two} deleted`].sort(),
    );
  });
});
