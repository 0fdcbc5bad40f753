// The anomaly scan, through the real cron trigger in workerd (runCron) and read back as a client
// would, through GET /v2/anomalies.json. Conversations and AI usage have no write endpoint here
// yet, so the tests insert those rows directly.
//
// The scan looks at every installation at once, and other files fire the cron too, at other
// moments: each scenario works in installations of its own, at moments in 2040 no other file
// uses, each scenario a month from the next (windows reach back 8 days at most).
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { runCron } from '../support/cron';
import { newInstallation, rows } from '../support/db';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const BASE = Date.UTC(2040, 2, 1, 12, 0, 0);
/** The scan's moment of scenario `n`. */
const momentOf = (n: number) => new Date(BASE + n * 30 * DAY);
const before = (at: Date, ms: number) => new Date(at.getTime() - ms);

interface Anomaly {
  id: number;
  name: string;
  details: Record<string, unknown> | null;
  customer: { id: number; type: string } | null;
  inbox: { id: number; type: string } | null;
  user: unknown;
  detectedAt: string;
  status: 'open' | 'cleared';
  createdBy: unknown;
  clearNote: string | null;
}

/** Every anomaly the installation's agent reads, oldest first. */
async function anomaliesOf(site: SeededInstallation): Promise<Anomaly[]> {
  const response = await api('/v2/anomalies.json', { key: site.users.agent.apiKey, query: { pageSize: 100 } });
  expect(response.status, response.text).toBe(200);
  expect(response.body.meta.page.count).toBeLessThan(100);
  return response.body.anomalies;
}

async function customer(site: SeededInstallation): Promise<number> {
  const [row] = await rows<{ id: number }>(
    `INSERT INTO customers (installation_id, email) VALUES ($1, $2) RETURNING id`,
    [site.id, `c-${Math.random().toString(36).slice(2, 10)}@scan.test`],
  );
  return row!.id;
}

async function contact(installationId: number, customerId: number | null): Promise<number> {
  const [row] = await rows<{ id: number }>(
    `INSERT INTO contacts (installation_id, name, customer_id) VALUES ($1, 'Visitor', $2) RETURNING id`,
    [installationId, customerId],
  );
  return row!.id;
}

async function inbox(site: SeededInstallation): Promise<number> {
  const [row] = await rows<{ id: number }>(
    `INSERT INTO inboxes (installation_id, name) VALUES ($1, 'Support') RETURNING id`,
    [site.id],
  );
  return row!.id;
}

interface Conversations {
  count: number;
  /** the newest one; each further one `spacing` earlier */
  newest: Date;
  spacingMs?: number;
  contactId?: number | null;
  inboxId?: number | null;
  state?: 'active' | 'deleted';
}

/** Inserts conversations created at `newest`, `newest - spacing`, ... */
async function conversations(installationId: number, c: Conversations): Promise<void> {
  await rows(
    `INSERT INTO conversations (installation_id, token, contact_id, inbox_id, state, created_at, updated_at, deleted_at)
     SELECT $1, gen_random_uuid()::text, $2, $3, $4, t, t, CASE WHEN $4 = 'deleted' THEN t END
       FROM generate_series(0, $5 - 1) AS g, LATERAL (SELECT $6::timestamptz - g * ($7 * interval '1 millisecond') AS t) AS x`,
    [
      installationId,
      c.contactId ?? null,
      c.inboxId ?? null,
      c.state ?? 'active',
      c.count,
      c.newest.toISOString(),
      c.spacingMs ?? MINUTE,
    ],
  );
}

// An event is unique by its stream and source: this file's own source type.
const AI_SOURCE = `scan-test-${Math.random().toString(36).slice(2, 10)}`;
let aiSourceId = 0;

/** Records `units` AI units for the installation at `at`, as one event. */
async function aiUnits(installationId: number, units: number, at: Date): Promise<void> {
  await rows(
    `INSERT INTO ai_usage_events (installation_id, stream, units, source_type, source_id, occurred_at) VALUES ($1, 'replies', $2, $3, $4, $5)`,
    [installationId, units, AI_SOURCE, ++aiSourceId, at.toISOString()],
  );
}

describe('conversation_burst: conversations of one customer in the hour before', () => {
  const at = momentOf(0);
  const since = before(at, HOUR);
  let site: SeededInstallation;
  const customers = { five: 0, four: 0, deleted: 0, twoContacts: 0, none: 0 };

  beforeAll(async () => {
    site = await newInstallation('scan-customer');
    for (const name of Object.keys(customers) as (keyof typeof customers)[]) customers[name] = await customer(site);
    // Exactly the threshold, the oldest exactly at the window's start (included).
    await conversations(site.id, {
      count: 5,
      newest: new Date(since.getTime() + 4 * MINUTE),
      contactId: await contact(site.id, customers.five),
    });
    // One below: 4 inside; one a millisecond before the window and one at `at` itself are outside.
    const four = await contact(site.id, customers.four);
    await conversations(site.id, { count: 4, newest: before(at, MINUTE), contactId: four });
    await conversations(site.id, { count: 1, newest: before(since, 1), contactId: four });
    await conversations(site.id, { count: 1, newest: at, contactId: four });
    // 4 live and 3 deleted: the deleted ones do not count.
    const withDeleted = await contact(site.id, customers.deleted);
    await conversations(site.id, { count: 4, newest: before(at, 2 * MINUTE), contactId: withDeleted });
    await conversations(site.id, {
      count: 3,
      newest: before(at, 3 * MINUTE),
      contactId: withDeleted,
      state: 'deleted',
    });
    // Two contacts of one customer add up: 3 + 2.
    await conversations(site.id, {
      count: 3,
      newest: before(at, 5 * MINUTE),
      contactId: await contact(site.id, customers.twoContacts),
    });
    await conversations(site.id, {
      count: 2,
      newest: before(at, 7 * MINUTE),
      contactId: await contact(site.id, customers.twoContacts),
    });
    // Contacts not linked to a customer are no customer's burst.
    await conversations(site.id, { count: 6, newest: before(at, 9 * MINUTE), contactId: await contact(site.id, null) });
    await runCron(at);
  });

  it('fires at 5 conversations (the window [at - 60 min, at) included at its start), with the customer and the details', async () => {
    const found = (await anomaliesOf(site)).filter((a) => a.customer?.id === customers.five);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      name: 'conversation_burst',
      customer: { id: customers.five, type: 'customers' },
      inbox: null,
      user: null,
      status: 'open',
      detectedAt: at.toISOString(),
      createdBy: null,
      details: { count: 5, windowMinutes: 60, since: since.toISOString() },
    });
  });

  it('adds up the contacts of one customer', async () => {
    const found = (await anomaliesOf(site)).filter((a) => a.customer?.id === customers.twoContacts);
    expect(found.map((a) => [a.name, a.details?.count])).toEqual([['conversation_burst', 5]]);
  });

  it('does not fire at 4 (nor for conversations outside the window), nor counting deleted conversations, nor without a customer', async () => {
    const all = await anomaliesOf(site);
    expect(all.map((a) => a.customer?.id).sort()).toEqual([customers.five, customers.twoContacts].sort());
    expect(all.every((a) => a.name === 'conversation_burst')).toBe(true);
  });
});

describe('inbox_burst: conversations of one inbox in the hour before, against its last 7 days', () => {
  const at = momentOf(1);
  const since = before(at, HOUR);
  let site: SeededInstallation;
  const inboxes = { exactlyThreeTimes: 0, underThreeTimes: 0, twenty: 0, nineteen: 0, deleted: 0 };
  // 1,176 conversations in the 168 hours before the window: 7 an hour; 21 is exactly 3 times that.
  const baselineSpacing = 8 * MINUTE;

  beforeAll(async () => {
    site = await newInstallation('scan-inbox');
    for (const name of Object.keys(inboxes) as (keyof typeof inboxes)[]) inboxes[name] = await inbox(site);
    const burst = (inboxId: number, count: number, state: 'active' | 'deleted' = 'active') =>
      conversations(site.id, { count, newest: before(at, 1), spacingMs: (HOUR - 1000) / count, inboxId, state });
    const baseline = (inboxId: number, count: number) =>
      conversations(site.id, { count, newest: before(since, 1), spacingMs: baselineSpacing, inboxId });
    await burst(inboxes.exactlyThreeTimes, 21);
    await baseline(inboxes.exactlyThreeTimes, 1176);
    await burst(inboxes.underThreeTimes, 21);
    await baseline(inboxes.underThreeTimes, 1177);
    await burst(inboxes.twenty, 20);
    await burst(inboxes.nineteen, 19);
    await burst(inboxes.deleted, 19);
    await burst(inboxes.deleted, 5, 'deleted');
    // Older than the 7 days: not part of any baseline.
    await conversations(site.id, { count: 500, newest: before(since, 7 * DAY + 1), inboxId: inboxes.twenty });
    await runCron(at);
  });

  it('fires at exactly 3 times the hourly average, with both figures', async () => {
    const found = (await anomaliesOf(site)).filter((a) => a.inbox?.id === inboxes.exactlyThreeTimes);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      name: 'inbox_burst',
      inbox: { id: inboxes.exactlyThreeTimes, type: 'inboxes' },
      customer: null,
      status: 'open',
      detectedAt: at.toISOString(),
      details: { count: 21, windowMinutes: 60, since: since.toISOString(), hourlyAverage: 7, baselineDays: 7 },
    });
  });

  it('fires at 20 conversations against a quiet week', async () => {
    const found = (await anomaliesOf(site)).filter((a) => a.inbox?.id === inboxes.twenty);
    expect(found.map((a) => a.details)).toEqual([
      { count: 20, windowMinutes: 60, since: since.toISOString(), hourlyAverage: 0, baselineDays: 7 },
    ]);
  });

  it('does not fire just under 3 times the average, at 19, nor counting deleted conversations', async () => {
    const all = await anomaliesOf(site);
    expect(all.map((a) => a.inbox?.id).sort()).toEqual([inboxes.exactlyThreeTimes, inboxes.twenty].sort());
    expect(all.every((a) => a.name === 'inbox_burst')).toBe(true);
  });
});

describe('ai_usage_spike: AI units in the 24 hours before, against the 7 days before them', () => {
  const at = momentOf(2);
  const since = before(at, DAY);
  const sites: Record<'exactlyThreeTimes' | 'underThreeTimes' | 'fifty' | 'fortyNine', SeededInstallation> =
    {} as never;

  beforeAll(async () => {
    for (const name of ['exactlyThreeTimes', 'underThreeTimes', 'fifty', 'fortyNine'] as const)
      sites[name] = await newInstallation(`scan-ai-${name.toLowerCase()}`);
    // 51 units against 119 in 7 days (17 a day): exactly 3 times; against 120, just under.
    await aiUnits(sites.exactlyThreeTimes.id, 30, before(at, 1));
    await aiUnits(sites.exactlyThreeTimes.id, 21, since);
    await aiUnits(sites.exactlyThreeTimes.id, 119, before(since, 1));
    await aiUnits(sites.exactlyThreeTimes.id, 999, before(since, 7 * DAY + 1));
    await aiUnits(sites.underThreeTimes.id, 51, before(at, HOUR));
    await aiUnits(sites.underThreeTimes.id, 60, before(since, 6 * DAY));
    await aiUnits(sites.underThreeTimes.id, 60, before(since, 7 * DAY));
    await aiUnits(sites.fifty.id, 50, before(at, 2 * HOUR));
    await aiUnits(sites.fortyNine.id, 49, before(at, 2 * HOUR));
    await aiUnits(sites.fortyNine.id, 5, at);
    await runCron(at);
  });

  it('fires at exactly 3 times the daily average, for the installation, with the figures', async () => {
    const found = await anomaliesOf(sites.exactlyThreeTimes);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      name: 'ai_usage_spike',
      customer: null,
      inbox: null,
      user: null,
      status: 'open',
      detectedAt: at.toISOString(),
      details: { units: 51, windowHours: 24, since: since.toISOString(), dailyAverage: 17, baselineDays: 7 },
    });
  });

  it('fires at 50 units against a quiet week', async () => {
    expect((await anomaliesOf(sites.fifty)).map((a) => [a.name, a.details])).toEqual([
      ['ai_usage_spike', { units: 50, windowHours: 24, since: since.toISOString(), dailyAverage: 0, baselineDays: 7 }],
    ]);
  });

  it('does not fire just under 3 times the average, nor at 49 units (a use at the moment itself is not in the window)', async () => {
    expect(await anomaliesOf(sites.underThreeTimes)).toEqual([]);
    expect(await anomaliesOf(sites.fortyNine)).toEqual([]);
  });
});

describe('another installation', () => {
  const at = momentOf(3);
  let site: SeededInstallation;
  let other: SeededInstallation;
  let otherCustomer = 0;

  beforeAll(async () => {
    site = await newInstallation('scan-mine');
    other = await newInstallation('scan-theirs');
    const mine = await customer(site);
    const myInbox = await inbox(site);
    // Half of each threshold here, and half in the other installation naming the same customer
    // and inbox: no installation reaches a threshold.
    await conversations(site.id, { count: 3, newest: before(at, MINUTE), contactId: await contact(site.id, mine) });
    await conversations(other.id, { count: 3, newest: before(at, MINUTE), contactId: await contact(other.id, mine) });
    // A conversation of the other installation from a contact of mine counts for nobody.
    await conversations(other.id, { count: 3, newest: before(at, MINUTE), contactId: await contact(site.id, mine) });
    await conversations(site.id, { count: 12, newest: before(at, MINUTE), inboxId: myInbox });
    await conversations(other.id, { count: 12, newest: before(at, MINUTE), inboxId: myInbox });
    await aiUnits(site.id, 30, before(at, HOUR));
    await aiUnits(other.id, 30, before(at, HOUR));
    // And a burst that is the other installation's own.
    otherCustomer = await customer(other);
    await conversations(other.id, {
      count: 6,
      newest: before(at, 2 * MINUTE),
      contactId: await contact(other.id, otherCustomer),
    });
    await runCron(at);
  });

  it("never makes an anomaly out of another installation's data", async () => {
    expect(await anomaliesOf(site)).toEqual([]);
  });

  it("records the other installation's own burst there, read only by it", async () => {
    const theirs = await anomaliesOf(other);
    expect(theirs.map((a) => [a.name, a.customer?.id, a.details?.count])).toEqual([
      ['conversation_burst', otherCustomer, 6],
    ]);
    const read = await api(`/v2/anomalies/${theirs[0]!.id}.json`, { key: site.users.agent.apiKey });
    expect(read.status, read.text).toBe(404);
  });
});

describe('deduplication', () => {
  const at = momentOf(4);
  let site: SeededInstallation;
  let first = 0;
  let second = 0;

  beforeAll(async () => {
    site = await newInstallation('scan-dedupe');
    first = await customer(site);
    second = await customer(site);
  });

  it('a second run, and runs side by side, record a burst once', async () => {
    await conversations(site.id, {
      count: 5,
      newest: before(at, MINUTE),
      spacingMs: 5 * MINUTE,
      contactId: await contact(site.id, first),
    });
    // Runs side by side, as when a run is late: each sees the burst, one records it.
    await Promise.all(Array.from({ length: 5 }, () => runCron(at)));
    await runCron(at);
    // Still a burst 5 and 10 minutes later: none records it again.
    await Promise.all([runCron(new Date(at.getTime() + 5 * MINUTE)), runCron(new Date(at.getTime() + 10 * MINUTE))]);
    const found = await anomaliesOf(site);
    expect(found.map((a) => [a.name, a.customer?.id, a.detectedAt])).toEqual([
      ['conversation_burst', first, at.toISOString()],
    ]);
  });

  it('another subject bursting meanwhile is an anomaly of its own', async () => {
    const later = new Date(at.getTime() + 15 * MINUTE);
    await conversations(site.id, {
      count: 5,
      newest: before(later, MINUTE),
      contactId: await contact(site.id, second),
    });
    await Promise.all(Array.from({ length: 5 }, () => runCron(later)));
    const found = await anomaliesOf(site);
    expect(found.map((a) => [a.customer?.id, a.detectedAt])).toEqual([
      [first, at.toISOString()],
      [second, later.toISOString()],
    ]);
  });

  it('a cleared anomaly keeps the same burst quiet for 24 hours; a burst after that fires again', async () => {
    const [anomaly] = (await anomaliesOf(site)).filter((a) => a.customer?.id === first);
    const cleared = await api(`/v2/anomalies/${anomaly!.id}/clear.json`, {
      method: 'POST',
      key: site.users.agent.apiKey,
      body: { clearNote: 'a campaign' },
    });
    expect(cleared.status, cleared.text).toBe(200);
    const firstContact = await contact(site.id, first);
    // The burst goes on: right after the clearing, and a new one just under 24 hours after it was detected.
    await runCron(new Date(at.getTime() + 20 * MINUTE));
    const almostADay = new Date(at.getTime() + DAY - MINUTE);
    await conversations(site.id, { count: 5, newest: before(almostADay, MINUTE), contactId: firstContact });
    await runCron(almostADay);
    expect((await anomaliesOf(site)).filter((a) => a.customer?.id === first).map((a) => a.status)).toEqual(['cleared']);
    // 24 hours after: recorded again, open; the cleared one stays as it was.
    const aDay = new Date(at.getTime() + DAY);
    await runCron(aDay);
    const found = (await anomaliesOf(site)).filter((a) => a.customer?.id === first);
    expect(found.map((a) => [a.status, a.detectedAt])).toEqual([
      ['cleared', at.toISOString()],
      ['open', aDay.toISOString()],
    ]);
    expect(found[1]!.details).toEqual({ count: 5, windowMinutes: 60, since: before(aDay, HOUR).toISOString() });
    expect(found[0]).toMatchObject({ id: anomaly!.id, details: anomaly!.details, clearNote: 'a campaign' });
  });

  it('an open anomaly keeps it quiet for 24 hours too, and is recorded anew when the burst goes on a day later', async () => {
    const later = new Date(at.getTime() + 15 * MINUTE);
    const secondContact = await contact(site.id, second);
    const almostADay = new Date(later.getTime() + DAY - 1);
    await conversations(site.id, { count: 5, newest: before(almostADay, MINUTE), contactId: secondContact });
    await runCron(almostADay);
    expect((await anomaliesOf(site)).filter((a) => a.customer?.id === second)).toHaveLength(1);
    await runCron(new Date(later.getTime() + DAY));
    const found = (await anomaliesOf(site)).filter((a) => a.customer?.id === second);
    expect(found.map((a) => [a.status, a.detectedAt])).toEqual([
      ['open', later.toISOString()],
      ['open', new Date(later.getTime() + DAY).toISOString()],
    ]);
  });
});
