// The events' way to the subscribers, in workerd through the real queue and the real cron: the
// queue drains an installation's events in order to the modules' subscribers (here the
// conversations' `tellRoom`, which tells a room its conversation's status); a redelivered
// message or a drain that dies half-way runs a subscriber once per event; an event whose queue
// message was lost is found by the cron's sweep; old events are deleted.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { runCron } from '../support/cron';
import { newInstallation, rows } from '../support/db';
import { drained, eventsOf } from '../support/events';
import { sendJobMessage } from '../support/queue';
import { eventually, type RoomClient } from '../support/room';
import { cleanUp, conversationInRoom, failHandling, patchConversation, statusFrames } from './support';

// Each test works in an installation of its own: a drain of one (retried later, say) never sees another's events.
let site: SeededInstallation;
let key: string;

beforeEach(async () => {
  site = await newInstallation('dispatch');
  key = site.users.agent.apiKey;
});

afterAll(cleanUp);

const setStatus = (id: number, status: 'open' | 'closed') => patchConversation(key, id, { status });

async function deliveries(eventId: number) {
  return rows<{ subscriber: string; handled: boolean; attempts: number; last_error: string | null }>(
    "SELECT subscriber, handled_at IS NOT NULL AS handled, attempts, last_error FROM event_deliveries WHERE event_id = $1 AND subscriber = 'conversations.tellRoom'",
    [eventId],
  );
}

/**
 * No status frame came between those taken so far and the next one: a later status change's frame,
 * awaited, comes after any frame sent before it (a room's frames arrive in order). The subscriber
 * runs inside the drain, so once `drained()` returns any duplicate was already sent.
 */
async function noFrameBeforeTheNextChange(id: number, room: RoomClient, status: 'open' | 'closed') {
  await setStatus(id, status);
  expect(await room.next('status', 10_000)).toEqual({ type: 'status', status });
}

describe('the drain', () => {
  it('hands an event to the subscribers that want it, in order, and records what each handled', async () => {
    const { id, room } = await conversationInRoom(key);
    await setStatus(id, 'closed');
    await setStatus(id, 'open');
    expect(await room.next('status', 10_000)).toEqual({ type: 'status', status: 'closed' });
    expect(await room.next('status', 10_000)).toEqual({ type: 'status', status: 'open' });
    await drained(site.id);
    const events = (await eventsOf(site.id, 'conversations', id)).filter((event) => event.kind === 'updated');
    expect(events.map((event) => event.data)).toEqual([
      { status: { before: 'open', after: 'closed' } },
      { status: { before: 'closed', after: 'open' } },
    ]);
    for (const event of events) {
      expect(event.dispatched).toBe(true);
      expect(await deliveries(event.id)).toEqual([
        { subscriber: 'conversations.tellRoom', handled: true, attempts: 0, last_error: null },
      ]);
    }
  });

  it('marks events no subscriber wants as dispatched, with no delivery', async () => {
    const response = await api('/v2/companies.json', { method: 'POST', key, body: { name: 'Nobody Listens' } });
    const [event] = await eventsOf(site.id, 'companies', response.body.company.id);
    await drained(site.id);
    expect(await deliveries(event!.id)).toEqual([]);
  });
});

describe('exactly once per subscriber', () => {
  it('runs a subscriber once when the drain message is delivered twice, and not again when its handled event is drained again', async () => {
    const { id, room } = await conversationInRoom(key);
    await setStatus(id, 'closed');
    // The same message again, at once and after the first drain: the lock and the record of what was handled hold.
    await sendJobMessage({ kind: 'events.drain', installationId: site.id });
    await room.next('status', 10_000);
    await drained(site.id);
    const [event] = (await eventsOf(site.id, 'conversations', id)).filter((e) => e.kind === 'updated');
    // As a redelivery after a drain that handled the event but died before marking it dispatched.
    await rows('UPDATE events SET dispatched_at = NULL WHERE id = $1', [event!.id]);
    await sendJobMessage({ kind: 'events.drain', installationId: site.id });
    await drained(site.id);
    expect(await deliveries(event!.id)).toEqual([
      { subscriber: 'conversations.tellRoom', handled: true, attempts: 0, last_error: null },
    ]);
    await noFrameBeforeTheNextChange(id, room, 'open');
    expect(statusFrames(room)).toEqual([
      { type: 'status', status: 'closed' },
      { type: 'status', status: 'open' },
    ]);
  });

  it('runs a subscriber once when the drain dies after its effect: the failure is counted and the event tried again', async () => {
    const { id, room } = await conversationInRoom(key);
    // Marking this conversation's next event handled fails once, after the room was told: as a consumer that dies there.
    const undo = await failHandling(id, { once: true });
    try {
      await setStatus(id, 'closed');
      await room.next('status', 10_000);
      const [event] = (await eventsOf(site.id, 'conversations', id)).filter((e) => e.kind === 'updated');
      // The failure is recorded (a kind of error, not its text); the queue brings the message back and the event is handled.
      await eventually(async () => ((await deliveries(event!.id))[0]?.handled ? true : undefined), 20_000);
      expect(await deliveries(event!.id)).toEqual([
        { subscriber: 'conversations.tellRoom', handled: true, attempts: 1, last_error: expect.stringMatching(/^\w+/) },
      ]);
      expect((await deliveries(event!.id))[0]!.last_error).not.toMatch(/drain dies|test/);
      await drained(site.id);
      // The room was told twice and applied the event once.
      await noFrameBeforeTheNextChange(id, room, 'open');
      expect(statusFrames(room)).toEqual([
        { type: 'status', status: 'closed' },
        { type: 'status', status: 'open' },
      ]);
    } finally {
      await undo();
    }
  }, 40_000);
});

describe('the sweep', () => {
  it('finds an event whose queue message was lost after the commit, and hands it over', async () => {
    const { id, room } = await conversationInRoom(key);
    await drained(site.id);
    // Committed with its change, but no message reached the queue.
    await rows(`UPDATE conversations SET status = 'closed' WHERE id = $1`, [id]);
    const [event] = await rows<{ id: number }>(
      `INSERT INTO events (installation_id, record_type, record_id, kind, data, actor_user_id, occurred_at)
       VALUES ($1, 'conversations', $2, 'updated', '{"status": {"before": "open", "after": "closed"}}', $3, now() - interval '2 minutes') RETURNING id::int`,
      [site.id, id, site.users.agent.id],
    );
    await runCron(new Date());
    expect(await room.next('status', 10_000)).toEqual({ type: 'status', status: 'closed' });
    await drained(site.id);
    expect((await deliveries(event!.id))[0]).toMatchObject({ handled: true });
    expect(statusFrames(room)).toEqual([{ type: 'status', status: 'closed' }]);
  });

  it('leaves a recent pending event to its own message', async () => {
    const [event] = await rows<{ id: number }>(
      `INSERT INTO events (installation_id, record_type, record_id, kind) VALUES ($1, 'companies', 1, 'updated') RETURNING id::int`,
      [site.id],
    );
    const other = await newInstallation('dispatch-recent');
    await rows(
      `INSERT INTO events (installation_id, record_type, record_id, kind) VALUES ($1, 'companies', 1, 'updated')`,
      [other.id],
    );
    await runCron(new Date());
    // A drain the sweep would have sent runs on the queue after the cron returns: give it a moment.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const dispatched = (installationId: number) =>
      rows<{ dispatched: boolean }>(
        'SELECT dispatched_at IS NOT NULL AS dispatched FROM events WHERE installation_id = $1',
        [installationId],
      );
    expect(await dispatched(other.id)).toEqual([{ dispatched: false }]);
    expect((await eventsOf(site.id, 'companies', 1)).map((e) => [e.id, e.dispatched])).toEqual([[event!.id, false]]);
    // Its own message drains it.
    await sendJobMessage({ kind: 'events.drain', installationId: site.id });
    await drained(site.id);
    expect((await eventsOf(site.id, 'companies', 1)).map((e) => [e.id, e.dispatched])).toEqual([[event!.id, true]]);
  });

  it(`deletes dispatched events after their retention, and no others`, async () => {
    const [old] = await rows<{ id: number }>(
      `INSERT INTO events (installation_id, record_type, record_id, kind, occurred_at, dispatched_at)
       VALUES ($1, 'companies', 1, 'updated', now() - interval '40 days', now() - interval '31 days') RETURNING id::int`,
      [site.id],
    );
    const [kept] = await rows<{ id: number }>(
      `INSERT INTO events (installation_id, record_type, record_id, kind, occurred_at, dispatched_at)
       VALUES ($1, 'companies', 1, 'updated', now() - interval '40 days', now() - interval '29 days') RETURNING id::int`,
      [site.id],
    );
    await runCron(new Date());
    const left = await rows<{ id: number }>('SELECT id::int FROM events WHERE id = ANY($1)', [[old!.id, kept!.id]]);
    expect(left).toEqual([{ id: kept!.id }]);
  });
});
