// SLA policies (/v2/slas.json) as the platform's client writes them, and the clocks they put on
// tickets: the first matching policy, due times per target, warnings and breaches by the cron,
// replies meeting targets, pauses while the ticket waits, filters, and the refusals.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { addWorkingMinutes } from '../../src/lib/working-time';
import { api } from '../support/api';
import { runCron } from '../support/cron';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { drained, eventsSince, lastEventId } from '../support/events';
import { SDK_HEADERS, SDK_INCLUDED } from '../support/sdk';

const MINUTE = 60_000;
const WAITING = 3;
const SOLVED = 5;

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;
let agent: string;
let inbox: number;
let quietInbox: number;
let urgent: number;
let low: number;
let hoursId: number;

const sla = (body: Record<string, unknown>, key = admin) =>
  api('/v2/slas.json', { method: 'POST', key, body: { sla: body }, query: { includes: 'all' } });
const ticketOf = async (id: number) => (await api(`/v2/tickets/${id}.json`, { key: admin })).body.ticket;
const newTicket = async (extra: Record<string, unknown> = {}) => {
  const made = await api('/v2/tickets.json', {
    method: 'POST',
    key: admin,
    body: {
      ticket: {
        subject: 'Clock',
        inbox,
        priority: { id: urgent },
        customer: { email: 'clock@slas.test' },
        message: 'Help',
        ...extra,
      },
    },
  });
  expect(made.status, made.text).toBe(201);
  await drained(site.id);
  return made.body.ticket as { id: number; createdAt: string };
};
const reply = async (id: number, body: Record<string, unknown>) => {
  const posted = await api(`/v2/tickets/${id}/messages.json`, {
    method: 'POST',
    key: admin,
    body: { message: 'Reply', ...body },
  });
  expect(posted.status, posted.text).toBe(201);
  await drained(site.id);
  return posted.body.message as { createdAt: string };
};
const plus = (iso: string, minutes: number) => new Date(Date.parse(iso) + minutes * MINUTE).toISOString();
/** The ticket as if made `minutes` earlier, due for the cron's next look. */
const age = (id: number, minutes: number) =>
  rows(
    `UPDATE tickets SET created_at = created_at - make_interval(mins => $2), sla_check_at = now() - interval '1 second' WHERE id = $1`,
    [id, minutes],
  );

beforeAll(async () => {
  site = await newInstallation('slas');
  other = await newInstallation('slas-other');
  admin = site.users.admin.apiKey;
  agent = site.users.agent.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: admin })).body.inboxes[0].id;
  quietInbox = (
    await api('/v2/inboxes.json', {
      method: 'POST',
      key: admin,
      body: { inbox: { name: 'Quiet', email: 'quiet@slas.test' } },
    })
  ).body.inbox.id;
  const priorities = (await api('/v2/ticketpriorities.json', { key: admin })).body.ticketpriorities as { id: number }[];
  urgent = priorities[0]!.id;
  low = priorities[1]!.id;
  hoursId = (await api('/v2/businesshours.json', { key: admin })).body.businesshours[0].id;
});

describe('policies, as the platform client writes them', () => {
  let read: any;

  it('creates with the whole SLAResponse: the policy, and its targets and notifications under included', async () => {
    const body = {
      sla: {
        id: 0,
        type: null,
        name: 'Gold',
        businesshours: { id: hoursId, type: '', meta: null },
        slacustomers: null,
        slacompanies: null,
        slainboxes: null,
        slatickettypes: null,
        slaticketpriorities: null,
        slatags: null,
        slanotifications: null,
        threads: null,
      },
      included: {
        ...SDK_INCLUDED,
        slanotifications: [
          { id: 0, type: 'firstResponse', condition: 'warning', duration: 5, notifyAssignedUser: true },
          { id: 0, type: 'firstResponse', condition: 'breach', duration: 0, notifyAssignedUser: true },
        ],
        slaticketpriorities: [
          {
            id: 0,
            type: null,
            hours: 2,
            minutes: 30,
            description: 'SLA for Urgent',
            priority: { id: urgent, type: '', meta: null },
          },
        ],
      },
    };
    const created = await api('/v2/slas.json', { method: 'POST', key: admin, headers: SDK_HEADERS, body });
    expect(created.status, created.text).toBe(201);
    const policy = created.body.sla;
    expect(policy).toMatchObject({
      type: 'slas',
      name: 'Gold',
      enabled: true,
      displayOrder: 0,
      businesshours: { id: hoursId, type: 'businesshours' },
    });
    expect(policy.slanotifications).toHaveLength(2);
    expect(created.body.included.slanotifications[0]).toMatchObject({
      type: 'firstResponse',
      condition: 'warning',
      duration: 5,
      notifyAssignedUser: true,
      user: null,
    });
    expect(created.body.included.slaticketpriorities[0]).toMatchObject({
      type: 'slaticketpriorities',
      hours: 2,
      minutes: 30,
      priority: { id: urgent, type: 'ticketpriorities' },
      replyTimeMinutes: null,
    });
    for (const name of ['id', 'displayOrder']) expect(Number.isInteger(policy[name]), name).toBe(true);
    // what the client's Get reads
    const got = await api(`/v2/slas/${policy.id}.json`, {
      key: agent,
      headers: SDK_HEADERS,
      query: { includes: 'all' },
    });
    expect(got.status, got.text).toBe(200);
    read = got.body;
    expect(read.included.slaticketpriorities).toHaveLength(1);
    const list = await api('/v2/slas.json', { key: agent, headers: SDK_HEADERS, query: { page: 1, pageSize: 50 } });
    expect(list.body.slas.map((s: { name: string }) => s.name)).toContain('Gold');
    expect(list.body.pagination).toMatchObject({ page: 1, pageSize: 50 });
    expect(list.body.meta.page).toMatchObject({ page: 1, pageSize: 50 });
  });

  it('updates with PUT, sending back what it read, changing only what changed', async () => {
    const mark = await lastEventId(site.id);
    const body = { sla: { ...read.sla, name: 'Gold plus' }, included: { ...SDK_INCLUDED, ...read.included } };
    const updated = await api(`/v2/slas/${read.sla.id}.json`, {
      method: 'PUT',
      key: admin,
      headers: SDK_HEADERS,
      body,
      query: { includes: 'all' },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.sla.name).toBe('Gold plus');
    expect(updated.body.included.slanotifications).toHaveLength(2);
    expect((await eventsSince(site.id, mark)).map((e) => `${e.recordType}:${e.kind}`)).toEqual(['slas:updated']);
    expect((await api(`/v2/slas/${read.sla.id}.json`, { method: 'DELETE', key: admin })).status).toBe(204);
  });

  it('refuses what is wrong with a 400 or 409 naming it, and writes nothing', async () => {
    const foreignCustomer = (
      await api('/v2/customers.json', {
        method: 'POST',
        key: other.users.admin.apiKey,
        body: { customer: { email: 'theirs@slas.test' } },
      })
    ).body.customer.id;
    const foreignHours = (await api('/v2/businesshours.json', { key: other.users.admin.apiKey })).body.businesshours[0]
      .id;
    const mark = await lastEventId(site.id);
    expectError(await sla({ description: 'no name' }), 400, 'sla.name');
    expectError(
      await sla({ name: 'Bad notice', slanotifications: [{ condition: 'someday', type: 'firstResponse' }] }),
      400,
      'sla.slanotifications[0].condition',
    );
    expectError(
      await sla({ name: 'Bad notice', slanotifications: [{ condition: 'warning' }] }),
      400,
      'sla.slanotifications[0].type',
    );
    expectError(
      await sla({ name: 'Bad target', slaticketpriorities: [{ priority: { id: urgent }, hours: -1 }] }),
      400,
      'sla.slaticketpriorities[0].hours',
    );
    expectError(
      await sla({ name: 'Bad target', slaticketpriorities: [{ priority: { id: urgent }, hours: '2' }] }),
      400,
      'sla.slaticketpriorities[0].hours',
    );
    expectError(
      await sla({ name: 'Foreign', slacustomers: [{ customer: { id: foreignCustomer } }] }),
      400,
      'sla.slacustomers[0].customer',
    );
    expectError(await sla({ name: 'Foreign', businesshours: { id: foreignHours } }), 400, 'sla.businesshours');
    expectError(
      await sla({ name: 'Scope', slainboxes: [{ inbox: { id: inbox }, conditionoption: 'maybe' }] }),
      400,
      'sla.slainboxes[0].conditionoption',
    );
    expectError(
      await sla({
        name: 'Twice',
        slaticketpriorities: [
          { priority: { id: urgent }, hours: 1 },
          { priority: { id: urgent }, hours: 2 },
        ],
      }),
      409,
      'sla.slaticketpriorities',
    );
    expectError(await sla({ name: 'Colour', colour: 'red', enabled: 'yes' }), 400, 'sla.enabled');
    expect((await sla({ name: 'By agent' }, agent)).status).toBe(403);
    expect(await eventsSince(site.id, mark)).toEqual([]);
    expect(await rows('SELECT count(*)::int AS n FROM slas WHERE installation_id = $1', [site.id])).toEqual([{ n: 1 }]);
    const made = await sla({ name: 'Once' });
    expect(made.status).toBe(201);
    expectError(await sla({ name: 'ONCE' }), 409, 'sla.name');
    expect((await api(`/v2/slas/${made.body.sla.id}.json`, { key: other.users.admin.apiKey })).status).toBe(404);
    expect((await api(`/v2/slas/${made.body.sla.id}.json`, { method: 'DELETE', key: admin })).status).toBe(204);
  });
});

describe('the clocks on tickets', () => {
  let gold: number;
  let fallback: number;

  beforeAll(async () => {
    // tried first: tickets of the main inbox, not tagged vip-excluded; calendar time
    const made = await sla({
      name: 'Main inbox',
      displayOrder: 1,
      slainboxes: [{ inbox: { id: inbox } }],
      slaticketpriorities: [
        { priority: { id: urgent }, hours: 1, minutes: 0, replyTimeMinutes: 30, resolutionTimeMinutes: 240 },
      ],
      slanotifications: [{ condition: 'warning', type: 'firstResponse', duration: 15 }],
    });
    expect(made.status, made.text).toBe(201);
    gold = made.body.sla.id;
    // everything else: working hours (Monday to Friday, 09:00 to 17:00 UTC)
    const second = await sla({
      name: 'Everything else',
      displayOrder: 2,
      businesshours: { id: hoursId },
      slaticketpriorities: [{ priority: { id: urgent }, hours: 8 }],
    });
    expect(second.status, second.text).toBe(201);
    fallback = second.body.sla.id;
  });

  it('a new ticket gets the first matching policy and its due times', async () => {
    const ticket = await newTicket();
    const read = await ticketOf(ticket.id);
    expect(read).toMatchObject({
      sla: { id: gold, type: 'slas' },
      slaFirstResponseStatus: 'pending',
      slaFirstResponseDueAt: plus(ticket.createdAt, 60),
      slaResolutionStatus: 'pending',
      slaResolutionDueAt: plus(ticket.createdAt, 240),
      slaNextReplyStatus: null,
      slaNextReplyDueAt: null,
      sla_breached: false,
    });
    // the second policy's clock is working time
    const elsewhere = await newTicket({ inbox: quietInbox });
    const quiet = await ticketOf(elsewhere.id);
    expect(quiet.sla).toEqual({ id: fallback, type: 'slas' });
    const hours = {
      timezoneId: 'UTC',
      schedules: [1, 2, 3, 4, 5].map((day) => ({ day, startHour: '09:00', endHour: '17:00' })),
      holidays: [],
    };
    expect(quiet.slaFirstResponseDueAt).toBe(
      addWorkingMinutes(hours, new Date(elsewhere.createdAt), 480)!.toISOString(),
    );
    expect(quiet.slaResolutionStatus).toBeNull();
    // a priority without targets: the policy applies, no target runs
    const calm = await newTicket({ priority: { id: low } });
    expect(await ticketOf(calm.id)).toMatchObject({
      sla: { id: gold, type: 'slas' },
      slaFirstResponseStatus: null,
      slaFirstResponseDueAt: null,
    });
  });

  it('the cron warns, then breaches, each an event and a line of the history; the list filters and orders by them', async () => {
    const ticket = await newTicket();
    const mark = await lastEventId(site.id);
    // the cron judges as of its own clock: the ticket is made older instead
    await runCron();
    expect((await ticketOf(ticket.id)).slaFirstResponseStatus).toBe('pending');
    await age(ticket.id, 50);
    await runCron();
    expect((await ticketOf(ticket.id)).slaFirstResponseStatus).toBe('warning');
    await age(ticket.id, 11);
    await runCron();
    await drained(site.id);
    const breached = await ticketOf(ticket.id);
    expect(breached).toMatchObject({
      slaFirstResponseStatus: 'breached',
      sla_breached: true,
      slaResolutionStatus: 'pending',
    });
    const changes = (await eventsSince(site.id, mark))
      .filter((e) => e.recordType === 'tickets' && e.recordId === ticket.id && e.kind === 'updated')
      .map((e) => e.data.slaFirstResponseStatus);
    expect(changes).toEqual([
      { before: 'pending', after: 'warning' },
      { before: 'warning', after: 'breached' },
    ]);
    const history = await api(`/v2/tickets/${ticket.id}/activities.json`, { key: admin });
    expect(history.body.ticketactivities.map((a: { eventType: string }) => a.eventType)).toEqual(
      expect.arrayContaining(['ticket.sla.warning', 'ticket.sla.breached']),
    );
    const listed = await api('/v2/tickets.json', {
      key: admin,
      query: { filter: JSON.stringify({ sla_breached: true }), pageSize: '100' },
    });
    expect(listed.body.tickets.map((t: { id: number }) => t.id)).toContain(ticket.id);
    expect(listed.body.tickets.every((t: { sla_breached: boolean }) => t.sla_breached)).toBe(true);
    const ordered = await api('/v2/tickets.json', {
      key: admin,
      query: {
        filter: JSON.stringify({ sla: gold, slaResolutionDueAt: { $ne: null } }),
        orderBy: 'slaResolutionDueAt',
        orderMode: 'asc',
        pageSize: '100',
      },
    });
    const dues = ordered.body.tickets.map((t: { slaResolutionDueAt: string }) => t.slaResolutionDueAt);
    expect(dues).toEqual([...dues].sort());
    // a late reply does not undo the breach
    await reply(ticket.id, {});
    expect((await ticketOf(ticket.id)).slaFirstResponseStatus).toBe('breached');
  });

  it('a teammate reply meets the first response; a customer message starts the next reply, the answer meets it', async () => {
    const ticket = await newTicket();
    await reply(ticket.id, {});
    const answered = await ticketOf(ticket.id);
    expect(answered).toMatchObject({ slaFirstResponseStatus: 'met', slaNextReplyStatus: null });
    const customer = answered.customer.id;
    const message = await reply(ticket.id, { customer: { id: customer } });
    const waiting = await ticketOf(ticket.id);
    expect(waiting.slaNextReplyStatus).toBe('pending');
    expect(Math.abs(Date.parse(waiting.slaNextReplyDueAt) - Date.parse(plus(message.createdAt, 30)))).toBeLessThan(
      1000,
    );
    await reply(ticket.id, {});
    expect(await ticketOf(ticket.id)).toMatchObject({
      slaNextReplyStatus: 'met',
      slaFirstResponseStatus: 'met',
      sla_breached: false,
    });
    // a note is no reply
    await reply(ticket.id, { customer: { id: customer } });
    await reply(ticket.id, { threadType: 'note' });
    expect((await ticketOf(ticket.id)).slaNextReplyStatus).toBe('pending');
  });

  it('stops while the ticket waits on the customer, moving the due times on by the time stood still; solved meets the resolution', async () => {
    const ticket = await newTicket();
    const before = await ticketOf(ticket.id);
    expect(
      (
        await api(`/v2/tickets/${ticket.id}.json`, {
          method: 'PATCH',
          key: admin,
          body: { ticket: { status: { id: WAITING } } },
        })
      ).status,
    ).toBe(200);
    await drained(site.id);
    expect(await ticketOf(ticket.id)).toMatchObject({
      slaFirstResponseStatus: 'paused',
      slaResolutionStatus: 'paused',
    });
    // the pause began two hours ago
    await rows("UPDATE tickets SET sla_paused_since = sla_paused_since - interval '2 hours' WHERE id = $1", [
      ticket.id,
    ]);
    expect(
      (
        await api(`/v2/tickets/${ticket.id}.json`, {
          method: 'PATCH',
          key: admin,
          body: { ticket: { status: { id: 1 } } },
        })
      ).status,
    ).toBe(200);
    await drained(site.id);
    const resumed = await ticketOf(ticket.id);
    expect(resumed.slaFirstResponseStatus).toBe('pending');
    const moved = (Date.parse(resumed.slaFirstResponseDueAt) - Date.parse(before.slaFirstResponseDueAt)) / MINUTE;
    expect(moved).toBeGreaterThanOrEqual(120);
    expect(moved).toBeLessThan(121);
    expect(
      (
        await api(`/v2/tickets/${ticket.id}.json`, {
          method: 'PATCH',
          key: admin,
          body: { ticket: { status: { id: SOLVED } } },
        })
      ).status,
    ).toBe(200);
    await drained(site.id);
    expect(await ticketOf(ticket.id)).toMatchObject({
      slaResolutionStatus: 'met',
      slaFirstResponseStatus: 'paused',
      sla_breached: false,
    });
    // the cron leaves a stopped clock alone, however late
    await age(ticket.id, 10_000);
    await runCron();
    expect((await ticketOf(ticket.id)).slaResolutionStatus).toBe('met');
  });

  it('finds the policy again when the ticket changes, and lets tickets go with a deleted policy', async () => {
    const ticket = await newTicket();
    expect(
      (
        await api(`/v2/tickets/${ticket.id}.json`, {
          method: 'PATCH',
          key: admin,
          body: { ticket: { inbox: { id: quietInbox } } },
        })
      ).status,
    ).toBe(200);
    await drained(site.id);
    expect((await ticketOf(ticket.id)).sla).toEqual({ id: fallback, type: 'slas' });
    expect(
      (await api(`/v2/slas/${fallback}.json`, { method: 'PATCH', key: admin, body: { sla: { enabled: false } } }))
        .status,
    ).toBe(200);
    expect(
      (
        await api(`/v2/tickets/${ticket.id}.json`, {
          method: 'PATCH',
          key: admin,
          body: { ticket: { priority: { id: low } } },
        })
      ).status,
    ).toBe(200);
    await drained(site.id);
    expect(await ticketOf(ticket.id)).toMatchObject({
      sla: null,
      slaFirstResponseStatus: null,
      slaFirstResponseDueAt: null,
    });
    const kept = await newTicket();
    expect((await api(`/v2/slas/${gold}.json`, { method: 'DELETE', key: admin })).status).toBe(204);
    expect(await ticketOf(kept.id)).toMatchObject({ sla: null, slaFirstResponseStatus: null, sla_breached: false });
    // another installation's tickets never meet this installation's policies
    const theirs = await api('/v2/tickets.json', {
      method: 'POST',
      key: other.users.admin.apiKey,
      body: {
        ticket: {
          subject: 'Theirs',
          inbox: (await api('/v2/inboxes.json', { key: other.users.admin.apiKey })).body.inboxes[0].id,
          customer: { email: 'x@slas.test' },
        },
      },
    });
    await drained(other.id);
    expect(
      (await api(`/v2/tickets/${theirs.body.ticket.id}.json`, { key: other.users.admin.apiKey })).body.ticket.sla,
    ).toBeNull();
  });
});
