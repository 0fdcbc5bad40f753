// responseTimeMins and resolutionTimeMins: from the write events (a reply, a sent draft, a status
// change by PATCH or bulk), in the installation's default business hours, else calendar time;
// the first reply counts once, reopening clears the resolution.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { drained } from '../support/events';

let site: SeededInstallation;
let owner: string;
let inbox: number;
let customer: number;

const ticketOf = async (id: number) => {
  await drained(site.id);
  return (await api(`/v2/tickets/${id}.json`, { key: owner })).body.ticket;
};
/** A ticket made `minutesAgo` ago (its creation moved back in the database: the events are now). */
async function oldTicket(minutesAgo: number, key = owner): Promise<number> {
  const id = (
    await api('/v2/tickets.json', { method: 'POST', key, body: { subject: 'Timed', inbox, customer, message: 'help' } })
  ).body.ticket.id;
  await rows(`UPDATE tickets SET created_at = now() - make_interval(mins => $2) WHERE id = $1`, [id, minutesAgo]);
  return id;
}
const reply = (id: number, body: Record<string, unknown>) =>
  api(`/v2/tickets/${id}/messages.json`, { method: 'POST', key: owner, body });

beforeAll(async () => {
  site = await newInstallation('ticket-timings');
  owner = site.users.owner.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: owner })).body.inboxes[0].id;
  customer = (await api('/v2/customers.json', { method: 'POST', key: owner, body: { email: 'timings@tickets.test' } }))
    .body.customer.id;
});

describe('in calendar time (no default business hours)', () => {
  // every installation starts with Monday to Friday 09:00-17:00 as its default: take it away
  beforeAll(() => rows('UPDATE business_hours SET is_default = false WHERE installation_id = $1', [site.id]));

  it('counts the first teammate reply once, not notes or drafts or later replies', async () => {
    const id = await oldTicket(90);
    expect((await ticketOf(id)).responseTimeMins).toBeNull();
    expect((await reply(id, { message: 'internal', threadType: 'note' })).status).toBe(201);
    expect((await reply(id, { message: 'not yet', isDraft: true })).status).toBe(201);
    expect((await ticketOf(id)).responseTimeMins).toBeNull();
    expect((await reply(id, { message: 'on it' })).status).toBe(201);
    const first = (await ticketOf(id)).responseTimeMins;
    expect(first).toBeGreaterThanOrEqual(89);
    expect(first).toBeLessThanOrEqual(92);
    await rows(`UPDATE tickets SET created_at = created_at - interval '10 hours' WHERE id = $1`, [id]);
    expect((await reply(id, { message: 'again' })).status).toBe(201);
    expect((await ticketOf(id)).responseTimeMins).toBe(first);
  });

  it('counts a draft when it is sent', async () => {
    const id = await oldTicket(30);
    const draft = (await reply(id, { message: 'later', isDraft: true })).body.message.id;
    expect(
      (await api(`/v2/messages/${draft}.json`, { method: 'PATCH', key: owner, body: { message: { isDraft: false } } }))
        .status,
    ).toBe(200);
    expect((await ticketOf(id)).responseTimeMins).toBeGreaterThanOrEqual(29);
  });

  it('sets the resolution on solved or closed, by PATCH or bulk, and clears it on reopening', async () => {
    const id = await oldTicket(240);
    expect(
      (await api(`/v2/tickets/${id}.json`, { method: 'PATCH', key: owner, body: { ticket: { status: 5 } } })).status,
    ).toBe(200);
    const resolved = await ticketOf(id);
    expect(resolved.resolutionTimeMins).toBeGreaterThanOrEqual(239);
    expect(resolved.resolutionTimeMins).toBeLessThanOrEqual(242);
    expect(
      (await api(`/v2/tickets/${id}.json`, { method: 'PATCH', key: owner, body: { ticket: { status: 1 } } })).status,
    ).toBe(200);
    expect((await ticketOf(id)).resolutionTimeMins).toBeNull();
    const bulk = await api('/v2/tickets/update.json', {
      method: 'PATCH',
      key: owner,
      query: { filter: { id } },
      body: { ticket: { status: 6 } },
    });
    expect(bulk.status, bulk.text).toBe(200);
    expect((await ticketOf(id)).resolutionTimeMins).toBeGreaterThanOrEqual(239);
    const filtered = await api('/v2/tickets.json', {
      key: owner,
      query: { filter: { resolutionTimeMins: { $gte: 200 } } },
    });
    expect(filtered.body.tickets.map((t: any) => t.id)).toEqual([id]);
  });
});

describe('in business hours', () => {
  it('counts only working time of the default business hours', async () => {
    // every day worked around the clock, but the three days before today (UTC) are holidays:
    // a ticket made at midnight three days ago has worked only since today's midnight
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const hours = await api('/v2/businesshours.json', {
      method: 'POST',
      key: owner,
      body: {
        businesshour: {
          name: 'Always but holidays',
          timezoneId: 1,
          isDefault: true,
          businesshoursschedules: [0, 1, 2, 3, 4, 5, 6].map((d) => ({ day: d, startHour: '00:00', endHour: '24:00' })),
          businesshoursholidays: [{ name: 'Off', startDate: day(-3), endDate: day(-1) }],
        },
      },
    });
    expect(hours.status, hours.text).toBe(201);
    const id = (
      await api('/v2/tickets.json', {
        method: 'POST',
        key: owner,
        body: { subject: 'Worked', inbox, customer, message: 'help' },
      })
    ).body.ticket.id;
    await rows(`UPDATE tickets SET created_at = $2::date WHERE id = $1`, [id, day(-3)]);
    expect((await reply(id, { message: 'on it' })).status).toBe(201);
    const sinceMidnight = (Date.now() - Date.parse(`${day(0)}T00:00:00Z`)) / 60_000;
    const counted = (await ticketOf(id)).responseTimeMins;
    expect(counted).toBeGreaterThanOrEqual(Math.floor(sinceMidnight) - 2);
    expect(counted).toBeLessThanOrEqual(Math.ceil(sinceMidnight) + 1);
  });
});
