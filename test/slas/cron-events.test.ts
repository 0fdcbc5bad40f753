// The cron's clock changes reach their subscribers at once, not at the next sweep: the cron's
// transaction reports, in its last statement, the installations whose events it wrote (no list
// kept by hand), so the queue is told to drain them as the cron finishes. A subscribed webhook
// endpoint receives the warning and the breach, and the ticket's history has them, seconds after
// the cron ran (the sweep waits a minute before it looks at an event).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { SWEEP_AFTER_SECONDS } from '../../src/events/sweep';
import { api } from '../support/api';
import { runCron } from '../support/cron';
import { newInstallation, rows } from '../support/db';
import { drained } from '../support/events';
import { eventually } from '../support/room';
import { receiver, TOKEN } from '../webhooks/receiver';

let site: SeededInstallation;
let admin: string;
let inbox: number;
let urgent: number;
const hook = receiver();

/** Well inside the sweep's minute: what arrives by then was not the sweep's doing. */
const PROMPTLY_MS = 15_000;

beforeAll(async () => {
  expect(PROMPTLY_MS).toBeLessThan(SWEEP_AFTER_SECONDS * 1000);
  site = await newInstallation('slas-cron-events');
  admin = site.users.admin.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: admin })).body.inboxes[0].id;
  urgent = (await api('/v2/ticketpriorities.json', { key: admin })).body.ticketpriorities[0].id;
  const policy = await api('/v2/slas.json', {
    method: 'POST',
    key: admin,
    body: {
      sla: {
        name: 'Prompt',
        slainboxes: [{ inbox: { id: inbox } }],
        slaticketpriorities: [{ priority: { id: urgent }, hours: 1, minutes: 0 }],
        slanotifications: [{ condition: 'warning', type: 'firstResponse', duration: 15 }],
      },
    },
  });
  expect(policy.status, policy.text).toBe(201);
  const endpoint = await api('/v2/webhookendpoints.json', {
    method: 'POST',
    key: admin,
    body: { webhookendpoint: { url: await hook.url, token: TOKEN } },
  });
  expect(endpoint.status, endpoint.text).toBe(201);
});

afterAll(async () => {
  await hook.close();
});

/** The ticket as if made `minutes` earlier, due for the cron's next look. */
const age = (id: number, minutes: number) =>
  rows(
    `UPDATE tickets SET created_at = created_at - make_interval(mins => $2), sla_check_at = now() - interval '1 second' WHERE id = $1`,
    [id, minutes],
  );

const received = (ticket: number, event: string) =>
  hook.requests.filter((r) => r.json.event === event && r.json.ticket?.id === ticket);

const history = async (ticket: number) =>
  (
    (await api(`/v2/tickets/${ticket}/activities.json`, { key: admin })).body.ticketactivities as {
      eventType: string;
    }[]
  ).map((a) => a.eventType);

describe("the cron's SLA changes, promptly", () => {
  it('reach a subscribed webhook endpoint and the ticket history within seconds of the run, warning then breach', async () => {
    const made = await api('/v2/tickets.json', {
      method: 'POST',
      key: admin,
      body: {
        ticket: {
          subject: 'Clock',
          inbox,
          priority: { id: urgent },
          customer: { email: 'prompt@slas.test' },
          message: 'Help',
        },
      },
    });
    expect(made.status, made.text).toBe(201);
    const ticket = made.body.ticket.id as number;
    await drained(site.id);
    for (const [minutes, event] of [
      [50, 'ticket.sla.warning'],
      [11, 'ticket.sla.breached'],
    ] as const) {
      await age(ticket, minutes);
      const ran = Date.now();
      await runCron();
      const [delivery] = await eventually(
        async () => (received(ticket, event).length ? received(ticket, event) : undefined),
        PROMPTLY_MS,
      );
      expect(delivery!.json.ticket.id).toBe(ticket);
      // the drain the cron asked for handed the change to every other subscriber too
      await drained(site.id, PROMPTLY_MS);
      expect(await history(ticket)).toContain(event);
      expect(Date.now() - ran).toBeLessThan(SWEEP_AFTER_SECONDS * 1000);
    }
  });
});
