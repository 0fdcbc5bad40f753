// Triggers: the platform's shape (conditions and actions under included), their refusals, automatic
// triggers acting once per ticket on its events, chains and their depth, time conditions by the
// cron, manual application, system triggers, and a trigger made incomplete by a deletion.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { runCron } from '../support/cron';
import { rows } from '../support/db';
import { expectError } from '../support/errors';
import { drained, eventsSince, lastEventId } from '../support/events';
import { SDK_INCLUDED } from '../support/sdk';
import { triggerSite } from './trigger-site';

const WAITING = 3;
const SOLVED = 5;

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;
let inbox: number;
let quietInbox: number;
let high: number;
let low: number;

const trigger = async (body: Record<string, unknown>, key = admin) =>
  api('/v2/triggers.json', { method: 'POST', key, body: { trigger: body }, query: { includes: 'all' } });
const made = async (body: Record<string, unknown>) => {
  const answer = await trigger(body);
  expect(answer.status, answer.text).toBe(201);
  return answer.body.trigger.id as number;
};
const tag = async (name: string) =>
  (await api('/v2/tags.json', { method: 'POST', key: admin, body: { name } })).body.tag.id as number;
const newTicket = async (extra: Record<string, unknown> = {}) => {
  const answer = await api('/v2/tickets.json', {
    method: 'POST',
    key: admin,
    body: {
      ticket: {
        subject: 'Plain',
        inbox: quietInbox,
        customer: { email: 'trig@triggers.test' },
        message: 'Hello',
        ...extra,
      },
    },
  });
  expect(answer.status, answer.text).toBe(201);
  await drained(site.id);
  return answer.body.ticket.id as number;
};
const ticketOf = async (id: number) =>
  (await api(`/v2/tickets/${id}.json`, { key: admin, query: { includes: 'tags' } })).body.ticket;
const lines = async (id: number) =>
  (await api(`/v2/tickets/${id}/activities.json`, { key: admin, query: { pageSize: 100 } })).body
    .ticketactivities as any[];
const tagsOf = async (id: number) =>
  ((await ticketOf(id)).tags as { id: number }[]).map((t) => t.id).sort((a, b) => a - b);

beforeAll(async () => {
  ({ site, other, admin, inbox, quietInbox, high, low } = await triggerSite('triggers'));
});

describe('triggers, as the platform writes them', () => {
  it('are made with conditions and triggeractions under included, listed inactive too, and switched on and off', async () => {
    const answer = await api('/v2/triggers.json', {
      method: 'POST',
      key: admin,
      query: { includes: 'all' },
      body: {
        trigger: { id: 0, type: 'Automatic', name: 'Shape', description: 'd', state: 'inactive' },
        included: {
          ...SDK_INCLUDED,
          conditions: [{ id: 0, field: 11, operator: 1, value: 'nothing-matches-this', matchRequirement: 'ALL' }],
          triggeractions: [{ id: 0, type: 2, value: String(low) }],
        },
      },
    });
    expect(answer.status, answer.text).toBe(201);
    const shape = answer.body.trigger;
    expect(shape).toMatchObject({
      type: 'Automatic',
      name: 'Shape',
      state: 'inactive',
      isSystem: false,
      displayOrder: 0,
    });
    expect(answer.body.included.conditions[0]).toMatchObject({
      field: 11,
      operator: 1,
      value: 'nothing-matches-this',
      matchRequirement: 'ALL',
    });
    expect(answer.body.included.triggeractions[0]).toMatchObject({ type: 2, value: String(low) });
    const listed = await api('/v2/triggers.json', {
      key: site.users.agent.apiKey,
      query: { filter: JSON.stringify({ state: 'inactive' }) },
    });
    expect(listed.body.triggers.map((t: { id: number }) => t.id)).toContain(shape.id);
    expect(
      (
        await api(`/v2/triggers/${shape.id}.json`, {
          method: 'PATCH',
          key: admin,
          body: { trigger: { state: 'active' } },
        })
      ).body.trigger.state,
    ).toBe('active');
    expectError(
      await api(`/v2/triggers/${shape.id}.json`, {
        method: 'PATCH',
        key: admin,
        body: { trigger: { state: 'incomplete' } },
      }),
      400,
      'trigger.state',
    );
    expect((await api(`/v2/triggers/${shape.id}.json`, { method: 'DELETE', key: admin })).status).toBe(204);
    expect((await api(`/v2/triggers/${shape.id}.json`, { key: admin })).status).toBe(404);
  });

  it('refuse conditions and actions that cannot run, with a 400 naming them, and write nothing', async () => {
    const foreignStatus =
      (
        await api('/v2/ticketstatuses.json', {
          method: 'POST',
          key: other.users.admin.apiKey,
          body: { ticketstatus: { name: 'Theirs', code: 'active' } },
        })
      ).body.ticketstatus?.id ?? 999_999;
    const mark = await lastEventId(site.id);
    const refused = async (body: Record<string, unknown>, source: string, detail?: RegExp) =>
      expectError(await trigger({ name: 'Bad', ...body }), 400, source, detail);
    const act = { triggeractions: [{ type: 2, value: String(low) }] };
    await refused({ ...act, conditions: [{ field: 99, operator: 3, value: '1' }] }, 'trigger.conditions[0].field');
    await refused({ ...act, conditions: [{ field: 1, operator: 99, value: '1' }] }, 'trigger.conditions[0].operator');
    await refused(
      { ...act, conditions: [{ field: 1, operator: 5, value: '1' }] },
      'trigger.conditions',
      /does not fit/,
    );
    await refused({ ...act, conditions: [{ field: 15, operator: 5, value: 'soon' }] }, 'trigger.conditions', /hours/);
    await refused(
      { ...act, conditions: [{ field: 1, operator: 3, value: String(foreignStatus) }] },
      'trigger.conditions',
      /no ticketstatuses/,
    );
    await refused({ ...act, conditions: [{ field: 13, operator: 3, value: 'gold' }] }, 'trigger.conditions', /JSON/);
    await refused(
      { ...act, conditions: [{ field: 1, operator: 3, value: '1', matchRequirement: 'SOME' }] },
      'trigger.conditions[0].matchRequirement',
    );
    await refused({ triggeractions: [{ type: 42, value: '1' }] }, 'trigger.triggeractions[0].type');
    await refused(
      { triggeractions: [{ type: 1, value: String(foreignStatus) }] },
      'trigger.triggeractions[0].value',
      /ticketstatuses/,
    );
    await refused({ triggeractions: [{ type: 5, value: 'a,b' }] }, 'trigger.triggeractions', /ids/);
    await refused({ triggeractions: [{ type: 1, value: '9999999999' }] }, 'trigger.triggeractions', /must be an id/);
    await refused(
      { ...act, conditions: [{ field: 9, operator: 17, value: '2147483648' }] },
      'trigger.conditions',
      /must be an id/,
    );
    await refused({ triggeractions: [{ type: 8 }] }, 'trigger.triggeractions', /message/);
    await refused({}, 'trigger.triggeractions', /at least one action/);
    await refused(
      { ...act, type: 'Manual', applyToExistingTickets: true },
      'trigger.applyToExistingTickets',
      /by hand/,
    );
    await refused({ ...act, type: 'Sometimes' }, 'trigger.type');
    expect((await trigger({ name: 'By agent', ...act }, site.users.agent.apiKey)).status).toBe(403);
    expect(await eventsSince(site.id, mark)).toEqual([]);
    expect(
      await rows(
        "SELECT count(*)::int AS n FROM triggers WHERE installation_id = $1 AND name <> 'Shape' AND NOT is_system",
        [site.id],
      ),
    ).toEqual([{ n: 0 }]);
  });
});

describe('automatic triggers', () => {
  it('act once on a ticket that matches, each action through its write, one history line naming the trigger', async () => {
    const refund = await tag('refund');
    const id = await made({
      name: 'Refunds',
      displayOrder: 1,
      inboxes: [{ id: inbox }],
      conditions: [
        { field: 11, operator: 1, value: 'refund' },
        { field: 12, operator: 1, value: 'money', matchRequirement: 'ANY' },
        { field: 2, operator: 1, value: '@shop.test', matchRequirement: 'ANY' },
      ],
      triggeractions: [
        { type: 2, value: String(high) },
        { type: 5, value: String(refund) },
        { type: 8, message: 'Check the **order** first' },
        { type: 11, value: String(site.users.agent.id) },
      ],
    });
    const ticket = await newTicket({ inbox, subject: 'Refund please', customer: { email: 'buyer@shop.test' } });
    const read = await ticketOf(ticket);
    expect(read.priority).toEqual({ id: high, type: 'ticketpriorities' });
    expect(await tagsOf(ticket)).toEqual([refund]);
    const thread = (await api(`/v2/tickets/${ticket}/messages.json`, { key: admin })).body.messages as any[];
    expect(thread.find((m) => m.threadType === 'note')?.textBody).toBe('Check the order first');
    const history = await lines(ticket);
    const line = history.find((l) => l.eventType === 'ticket.trigger');
    expect(line.changes.trigger).toEqual({ id, type: 'triggers', name: 'Refunds' });
    expect(history.find((l) => l.eventType === 'ticket.priority')).toMatchObject({ actorSystem: 'triggers' });
    // once per ticket: the tag taken off and the ticket changed again, the trigger does not come back
    expect(
      (
        await api(`/v2/tickets/${ticket}.json`, {
          method: 'PATCH',
          key: admin,
          body: { ticket: { tags: [{ id: refund, meta: { delete: true } }], subject: 'Refund please, again' } },
        })
      ).status,
    ).toBe(200);
    await drained(site.id);
    expect(await tagsOf(ticket)).toEqual([]);
    // not matching: another inbox, or neither ANY condition
    expect(
      (await ticketOf(await newTicket({ subject: 'Refund please', customer: { email: 'buyer@shop.test' } }))).priority,
    ).toBeNull();
    expect(
      (await ticketOf(await newTicket({ inbox, subject: 'Refund please', customer: { email: 'x@else.test' } })))
        .priority,
    ).toBeNull();
  });

  it('set one another off through their changes, and a chain stops at its depth with a line saying so', async () => {
    const names = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'];
    const ids: Record<string, number> = {};
    for (const name of names) ids[name] = await tag(`${name}-chain`);
    const marker = await tag('chain-start');
    // the last link first, so that each acts only through the event of the one before
    for (let i = names.length - 1; i >= 0; i--) {
      const when =
        i === 0
          ? { field: 9, operator: 17, value: String(marker) }
          : { field: 9, operator: 17, value: String(ids[names[i - 1]!]) };
      await made({
        name: `Chain ${i + 1}`,
        displayOrder: 10 + (names.length - i),
        conditions: [when],
        triggeractions: [{ type: 5, value: String(ids[names[i]!]) }],
      });
    }
    const ticket = await newTicket();
    expect(
      (
        await api(`/v2/tickets/${ticket}.json`, {
          method: 'PATCH',
          key: admin,
          body: { ticket: { tags: [{ id: marker }] } },
        })
      ).status,
    ).toBe(200);
    await drained(site.id);
    const tags = await tagsOf(ticket);
    expect(tags).toEqual([marker, ids.c1!, ids.c2!, ids.c3!, ids.c4!, ids.c5!].sort((a, b) => a - b));
    const runs = await rows<{ depth: number }>('SELECT depth FROM trigger_runs WHERE ticket_id = $1 ORDER BY depth', [
      ticket,
    ]);
    expect(runs.map((r) => r.depth)).toEqual([1, 2, 3, 4, 5]);
    const stopped = (await lines(ticket)).find((l) => l.eventType === 'ticket.trigger.stopped');
    expect(stopped.changes).toMatchObject({ trigger: { name: 'Chain 6' }, stopped: true, depth: 6 });
  });

  it('with a time condition are run by the cron, as of when it runs', async () => {
    const id = await made({
      name: 'Waiting long',
      conditions: [
        { field: 18, operator: 5, value: '48' },
        { field: 1, operator: 3, value: String(WAITING) },
      ],
      triggeractions: [{ type: 1, value: String(SOLVED) }],
    });
    const ticket = await newTicket({ status: { id: WAITING } });
    await runCron();
    expect((await ticketOf(ticket)).status.id).toBe(WAITING);
    await rows("UPDATE tickets SET created_at = created_at - interval '49 hours' WHERE id = $1", [ticket]);
    await rows("UPDATE ticket_activities SET created_at = created_at - interval '49 hours' WHERE ticket_id = $1", [
      ticket,
    ]);
    await runCron();
    await drained(site.id);
    expect((await ticketOf(ticket)).status.id).toBe(SOLVED);
    expect((await lines(ticket)).find((l) => l.eventType === 'ticket.trigger').changes.trigger.id).toBe(id);
  });

  it('written with applyToExistingTickets, are applied by the cron to the tickets there are, once each', async () => {
    const marked = await tag('legacy-applied');
    const first = await newTicket({ subject: 'Legacy order 1' });
    const unrelated = await newTicket({ subject: 'Unrelated' });
    const second = await newTicket({ subject: 'Legacy order 2' });
    const created = await trigger({
      name: 'Tag legacy',
      conditions: [{ field: 11, operator: 1, value: 'legacy order' }],
      triggeractions: [{ type: 5, value: String(marked) }],
      applyToExistingTickets: true,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.trigger.applyingToExistingTickets).toBe(true);
    // tickets whose events came before it: the cron's walk, not the write, applies it
    expect(await tagsOf(first)).not.toContain(marked);
    await runCron();
    await drained(site.id);
    expect(await tagsOf(first)).toContain(marked);
    expect(await tagsOf(second)).toContain(marked);
    expect(await tagsOf(unrelated)).not.toContain(marked);
    expect(
      (await api(`/v2/triggers/${created.body.trigger.id}.json`, { key: admin })).body.trigger
        .applyingToExistingTickets,
    ).toBe(false);
    // once a ticket: the tag taken off stays off, the walk done
    expect(
      (
        await api(`/v2/tickets/${first}.json`, {
          method: 'PATCH',
          key: admin,
          body: { ticket: { tags: [{ id: marked, meta: { delete: true } }] } },
        })
      ).status,
    ).toBe(200);
    await runCron();
    await drained(site.id);
    expect(await tagsOf(first)).not.toContain(marked);
    expect(
      (await lines(second)).filter(
        (l) => l.eventType === 'ticket.trigger' && l.changes.trigger.id === created.body.trigger.id,
      ),
    ).toHaveLength(1);
    // a bulk update does not take it (refused or ignored, it starts no walk); an update does; a system trigger is not applied to anything
    const cursor = async () =>
      (
        await rows<{ existing_cursor: number | null }>('SELECT existing_cursor FROM triggers WHERE id = $1', [
          created.body.trigger.id,
        ])
      )[0]!.existing_cursor;
    expect(
      (
        await api('/v2/triggers/update.json', {
          method: 'PATCH',
          key: admin,
          query: { filter: JSON.stringify({ id: created.body.trigger.id }) },
          body: { trigger: { applyToExistingTickets: true } },
        })
      ).status,
    ).toBeLessThan(500);
    expect(await cursor()).toBeNull();
    const again = await api(`/v2/triggers/${created.body.trigger.id}.json`, {
      method: 'PATCH',
      key: admin,
      body: { trigger: { applyToExistingTickets: true } },
    });
    expect(again.status, again.text).toBe(200);
    expect(await cursor()).toBe(0);
    const system = (
      await api('/v2/triggers.json', { key: admin, query: { filter: JSON.stringify({ isSystem: true }) } })
    ).body.triggers[0].id;
    expectError(
      await api(`/v2/triggers/${system}.json`, {
        method: 'PATCH',
        key: admin,
        body: { trigger: { applyToExistingTickets: true } },
      }),
      400,
      'trigger.applyToExistingTickets',
    );
    expect((await api(`/v2/triggers/${created.body.trigger.id}.json`, { method: 'DELETE', key: admin })).status).toBe(
      204,
    );
  });

  it('become incomplete when something they name is deleted, and do not run', async () => {
    const doomed = await tag('doomed');
    const id = await made({
      name: 'Doomed',
      conditions: [{ field: 11, operator: 1, value: 'doomed' }],
      triggeractions: [{ type: 5, value: String(doomed) }],
    });
    expect((await api(`/v2/tags/${doomed}.json`, { method: 'DELETE', key: admin })).status).toBe(204);
    const ticket = await newTicket({ subject: 'A doomed ticket' });
    expect(await tagsOf(ticket)).toEqual([]);
    expect((await api(`/v2/triggers/${id}.json`, { key: admin })).body.trigger.state).toBe('incomplete');
  });
});

describe('a trigger held to the rules', () => {
  it('fails on a ticket it may not change as asked, with a line saying why and nothing of it kept; a broken one is switched off, not on', async () => {
    const field = (
      await api('/v2/customfields.json', {
        method: 'POST',
        key: admin,
        body: { customfield: { agentLabel: 'Cause', kind: 'text', agentRequired: true } },
      })
    ).body.customfield.id;
    const dup = await tag('dup');
    const id = await made({
      name: 'Close early',
      conditions: [{ field: 11, operator: 1, value: 'close me' }],
      triggeractions: [
        { type: 6, value: String(dup) },
        { type: 6, value: String(dup) },
        { type: 2, value: String(low) },
        { type: 1, value: String(SOLVED) },
      ],
    });
    const ticket = await newTicket({ subject: 'Please close me', tags: [{ id: dup }] });
    const read = await ticketOf(ticket);
    expect(read.status.id).toBe(1);
    expect(read.priority).toBeNull();
    expect(await tagsOf(ticket)).toEqual([dup]);
    const failed = (await lines(ticket)).find((l) => l.eventType === 'ticket.trigger.failed');
    expect(failed.changes).toMatchObject({ trigger: { id }, failed: expect.stringMatching(/Cause/) });
    // with the field filled it would act, but an automatic trigger acts once: it failed its once
    expect((await api(`/v2/customfields/${field}.json`, { method: 'DELETE', key: admin })).status).toBe(204);

    expectError(
      await trigger({
        name: 'To a collaborator',
        triggeractions: [{ type: 4, value: String(site.users.collaborator.id) }],
      }),
      400,
      'trigger.triggeractions',
      /collaborator/,
    );
    const gone = await tag('gone-soon');
    const broken = await made({
      name: 'Broken later',
      conditions: [{ field: 11, operator: 1, value: 'never-matches' }],
      triggeractions: [{ type: 5, value: String(gone) }],
    });
    expect((await api(`/v2/tags/${gone}.json`, { method: 'DELETE', key: admin })).status).toBe(204);
    expect(
      (
        await api(`/v2/triggers/${broken}.json`, {
          method: 'PATCH',
          key: admin,
          body: { trigger: { state: 'inactive', name: 'Broken, off' } },
        })
      ).status,
    ).toBe(200);
    expectError(
      await api(`/v2/triggers/${broken}.json`, { method: 'PATCH', key: admin, body: { trigger: { state: 'active' } } }),
      400,
      'trigger.triggeractions',
      /not here/,
    );
    expectError(
      await api('/v2/triggers/update.json', {
        method: 'PATCH',
        key: admin,
        query: { filter: JSON.stringify({ id: broken }) },
        body: { trigger: { state: 'active' } },
      }),
      400,
      'trigger.triggeractions',
    );
    expect((await api(`/v2/triggers/${broken}.json`, { key: admin })).body.trigger.state).toBe('inactive');
  });
});

describe('manual and system triggers', () => {
  it('apply by hand, as often as asked, to one ticket or several, all or none', async () => {
    const id = await made({
      name: 'Escalate',
      type: 'Manual',
      triggeractions: [
        { type: 2, value: String(high) },
        { type: 9, message: 'Hello {{customer.firstName}}, ticket {{ticket.id}} is escalated' },
      ],
    });
    const automatic = await made({
      name: 'Not by hand',
      conditions: [{ field: 11, operator: 1, value: 'never-ever' }],
      triggeractions: [{ type: 2, value: String(low) }],
    });
    const ticket = await newTicket({ inbox, customer: { email: 'ann@triggers.test', firstName: 'Ann' } });
    const applied = await api(`/v2/tickets/${ticket}/triggerapply.json`, {
      method: 'PATCH',
      key: site.users.agent.apiKey,
      body: { trigger: { id } },
    });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.ticket.priority).toEqual({ id: high, type: 'ticketpriorities' });
    expect(
      (await api(`/v2/tickets/${ticket}/triggerapply.json`, { method: 'PATCH', key: admin, body: { trigger: id } }))
        .status,
    ).toBe(200);
    await drained(site.id);
    const replies = ((await api(`/v2/tickets/${ticket}/messages.json`, { key: admin })).body.messages as any[]).filter(
      (m) => m.threadType === 'message' && !m.customer,
    );
    expect(replies.map((m) => m.textBody)).toEqual([
      `Hello Ann, ticket ${ticket} is escalated`,
      `Hello Ann, ticket ${ticket} is escalated`,
    ]);
    expect((await lines(ticket)).filter((l) => l.eventType === 'ticket.trigger')).toHaveLength(2);
    expectError(
      await api(`/v2/tickets/${ticket}/triggerapply.json`, {
        method: 'PATCH',
        key: admin,
        body: { trigger: { id: automatic } },
      }),
      400,
      'trigger',
    );
    expectError(
      await api(`/v2/tickets/${ticket}/triggerapply.json`, { method: 'PATCH', key: admin, body: {} }),
      400,
      'trigger',
    );
    expect(
      (
        await api(`/v2/tickets/${ticket}/triggerapply.json`, {
          method: 'PATCH',
          key: other.users.admin.apiKey,
          body: { trigger: { id } },
        })
      ).status,
    ).toBe(400);
    const second = await newTicket();
    const many = await api('/v2/tickets/triggerapply.json', {
      method: 'PATCH',
      key: admin,
      body: { trigger: { id }, tickets: [second, { id: ticket }] },
    });
    expect(many.status, many.text).toBe(200);
    expect(many.body).toEqual({ affected: 2, ids: [ticket, second].sort((a, b) => a - b) });
    const foreignTicket = (
      await api('/v2/tickets.json', {
        method: 'POST',
        key: other.users.admin.apiKey,
        body: {
          ticket: {
            subject: 'Theirs',
            inbox: (await api('/v2/inboxes.json', { key: other.users.admin.apiKey })).body.inboxes[0].id,
            customer: { email: 'x@o.test' },
          },
        },
      })
    ).body.ticket.id;
    const before = await lastEventId(site.id);
    expectError(
      await api('/v2/tickets/triggerapply.json', {
        method: 'PATCH',
        key: admin,
        body: { trigger: { id }, tickets: [second, foreignTicket] },
      }),
      404,
      'tickets',
    );
    expect(await eventsSince(site.id, before)).toEqual([]);
  });

  it('a system trigger is only switched on or off, and never deleted', async () => {
    // every installation has the service's own (the mail notifications to teammates)
    const system = await api('/v2/triggers.json', {
      key: admin,
      query: { filter: JSON.stringify({ isSystem: true }), orderBy: 'id' },
    });
    expect(system.body.triggers.map((t: { systemKey: string; state: string }) => [t.systemKey, t.state])).toEqual([
      ['notify.assigned', 'active'],
      ['notify.customerReply', 'active'],
      ['notify.newTicket', 'inactive'],
    ]);
    const { id } = system.body.triggers[0] as { id: number };
    expectError(
      await api(`/v2/triggers/${id}.json`, { method: 'PATCH', key: admin, body: { trigger: { name: 'Mine now' } } }),
      400,
      'trigger.name',
    );
    expect(
      (await api(`/v2/triggers/${id}.json`, { method: 'PATCH', key: admin, body: { trigger: { state: 'inactive' } } }))
        .body.trigger,
    ).toMatchObject({ state: 'inactive', isSystem: true });
    expectError(
      await api(`/v2/triggers/update.json`, {
        method: 'PATCH',
        key: admin,
        query: { filter: JSON.stringify({ id }) },
        body: { trigger: { displayOrder: 3 } },
      }),
      400,
      'trigger.displayOrder',
    );
    expect((await api(`/v2/triggers/${id}.json`, { method: 'DELETE', key: admin })).status).toBe(409);
    expect(
      (
        await api('/v2/triggers/delete.json', {
          method: 'DELETE',
          key: admin,
          query: { filter: JSON.stringify({ id }) },
        })
      ).status,
    ).toBe(409);
    expect((await api(`/v2/triggers/${id}.json`, { key: admin })).status).toBe(200);
    expect(
      (await api(`/v2/triggers/${id}.json`, { method: 'PATCH', key: admin, body: { trigger: { state: 'active' } } }))
        .body.trigger,
    ).toMatchObject({ state: 'active' });
  });

  it('holds a bulk update to the rules of a single one, changing no row when one selected trigger refuses', async () => {
    const team = await made({ name: 'Bulk team', type: 'Manual', triggeractions: [{ type: 2, value: String(high) }] });
    const bare = await made({ name: 'Bulk bare', type: 'Manual' });
    const systems = (
      await api('/v2/triggers.json', { key: admin, query: { filter: JSON.stringify({ isSystem: true }) } })
    ).body.triggers.map((t: { id: number }) => t.id) as number[];
    const selected = [...systems, team];
    const stored = () =>
      rows(
        'SELECT id, name, description, type, state, agent_has_access, display_order, updated_at FROM triggers WHERE id = ANY($1) ORDER BY id',
        [[...selected, bare]],
      );
    const bulk = (ids: number[], body: Record<string, unknown>) =>
      api('/v2/triggers/update.json', {
        method: 'PATCH',
        key: admin,
        query: { filter: JSON.stringify({ id: { $in: ids } }) },
        body: { trigger: body },
      });
    const before = await stored();
    // the system triggers' protected properties, rewritten alongside a team trigger's (a dry run too)
    expectError(
      await bulk(selected, { name: 'Hijacked', agentHasAccess: false }),
      400,
      'trigger.name',
      /is a system trigger/,
    );
    expectError(
      await bulk(selected, { state: 'inactive', description: 'off, and rewritten' }),
      400,
      'trigger.description',
    );
    expectError(
      await api('/v2/triggers/update.json', {
        method: 'PATCH',
        key: admin,
        body: {
          trigger: { displayOrder: 1 },
          filter_args: { filter: { id: { $in: selected } }, bulkDryExecute: true },
        },
      }),
      400,
      'trigger.displayOrder',
    );
    // a manual trigger without actions made automatic: refused singly, and so in bulk
    expectError(
      await api(`/v2/triggers/${bare}.json`, { method: 'PATCH', key: admin, body: { trigger: { type: 'Automatic' } } }),
      400,
      'trigger.triggeractions',
    );
    expectError(await bulk([team, bare], { type: 'Automatic' }), 400, 'trigger.triggeractions', /at least one action/);
    expect(await stored()).toEqual(before);
    // what the rules allow goes through
    const renamed = await bulk([team, bare], { description: 'both' });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.affected).toBe(2);
  });
});
