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
import { eventually, joinRoom, type RoomClient } from '../support/room';

// Each test works in an installation of its own: a drain of one (retried later, say) never sees another's events.
let site: SeededInstallation;
let key: string;
const sockets: RoomClient[] = [];

beforeEach(async () => {
  site = await newInstallation('dispatch');
  key = site.users.agent.apiKey;
});

afterAll(async () => {
  await Promise.all(sockets.map((socket) => socket.close()));
});

/** A conversation with the agent joined to its room: the room's frames are what the subscriber did. */
async function conversationInRoom(): Promise<{ id: number; token: string; room: RoomClient }> {
  const response = await api('/v2/conversations.json', { method: 'POST', key, body: { conversation: { contact: { name: 'Dispatch' } } } });
  expect(response.status, response.text).toBe(201);
  const { id, token, socketUrl } = response.body.conversation;
  const room = await joinRoom(socketUrl, key);
  sockets.push(room);
  await room.next('welcome');
  return { id, token, room };
}

const statusFrames = (room: RoomClient) => room.frames.filter((frame) => frame.type === 'status');

async function setStatus(id: number, status: 'open' | 'closed') {
  const response = await api(`/v2/conversations/${id}.json`, { method: 'PATCH', key, body: { status } });
  expect(response.status, response.text).toBe(200);
}

async function deliveries(eventId: number) {
  return rows<{ subscriber: string; handled: boolean; attempts: number; last_error: string | null }>(
    'SELECT subscriber, handled_at IS NOT NULL AS handled, attempts, last_error FROM event_deliveries WHERE event_id = $1',
    [eventId],
  );
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));

describe('the drain', () => {
  it('hands an event to the subscribers that want it, in order, and records what each handled', async () => {
    const { id, room } = await conversationInRoom();
    await setStatus(id, 'closed');
    await setStatus(id, 'open');
    expect(await room.next('status', 10_000)).toEqual({ type: 'status', status: 'closed' });
    expect(await room.next('status', 10_000)).toEqual({ type: 'status', status: 'open' });
    await drained(site.id);
    const events = (await eventsOf(site.id, 'conversations', id)).filter((event) => event.kind === 'updated');
    expect(events.map((event) => event.data)).toEqual([{ status: { before: 'open', after: 'closed' } }, { status: { before: 'closed', after: 'open' } }]);
    for (const event of events) {
      expect(event.dispatched).toBe(true);
      expect(await deliveries(event.id)).toEqual([{ subscriber: 'conversations.tellRoom', handled: true, attempts: 0, last_error: null }]);
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
  it('runs a subscriber once when the drain message is delivered twice, and again when its event comes back', async () => {
    const { id, room } = await conversationInRoom();
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
    await settle();
    expect(statusFrames(room)).toEqual([{ type: 'status', status: 'closed' }]);
    expect(await deliveries(event!.id)).toEqual([{ subscriber: 'conversations.tellRoom', handled: true, attempts: 0, last_error: null }]);
  });

  it('runs a subscriber once when the drain dies after its effect: the failure is counted and the event tried again', async () => {
    const { id, room } = await conversationInRoom();
    // The first record of this conversation's next event as handled fails, after the room was told: as a consumer that dies there.
    // A sequence counts the tries: unlike a row, its count survives the rollback of the failing one.
    const name = `test_dispatch_${Math.random().toString(36).slice(2, 10)}`;
    await rows(`CREATE SEQUENCE ${name}`);
    await rows(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.handled_at IS NOT NULL AND (SELECT record_type = 'conversations' AND record_id = ${id} FROM events WHERE id = NEW.event_id)
           AND nextval('${name}') = 1 THEN
          RAISE EXCEPTION 'test: the drain dies here';
        END IF;
        RETURN NEW;
      END $$`);
    const trigger = name;
    await rows(`CREATE TRIGGER ${trigger} BEFORE INSERT OR UPDATE ON event_deliveries FOR EACH ROW EXECUTE FUNCTION ${name}()`);
    try {
      await setStatus(id, 'closed');
      await room.next('status', 10_000);
      const [event] = (await eventsOf(site.id, 'conversations', id)).filter((e) => e.kind === 'updated');
      // The failure is recorded (a kind of error, not its text); the queue brings the message back and the event is handled.
      await eventually(async () => ((await deliveries(event!.id))[0]?.handled ? true : undefined), 20_000);
      expect(await deliveries(event!.id)).toEqual([{ subscriber: 'conversations.tellRoom', handled: true, attempts: 1, last_error: expect.stringMatching(/^\w+/) }]);
      expect((await deliveries(event!.id))[0]!.last_error).not.toMatch(/drain dies|test/);
      await drained(site.id);
      await settle();
      // The room was told twice and applied the event once.
      expect(statusFrames(room)).toEqual([{ type: 'status', status: 'closed' }]);
    } finally {
      await rows(`DROP TRIGGER IF EXISTS ${trigger} ON event_deliveries`);
      await rows(`DROP FUNCTION IF EXISTS ${name}()`);
      await rows(`DROP SEQUENCE IF EXISTS ${name}`);
    }
  }, 40_000);
});

describe('the sweep', () => {
  it('finds an event whose queue message was lost after the commit, and hands it over', async () => {
    const { id, room } = await conversationInRoom();
    await drained(site.id);
    // Committed with its change, but no message reached the queue.
    await rows(`UPDATE conversations SET status = 'closed' WHERE id = $1`, [id]);
    const [event] = await rows<{ id: number }>(
      `INSERT INTO events (installation_id, record_type, record_id, kind, data, actor_user_id, occurred_at)
       VALUES ($1, 'conversations', $2, 'updated', '{"status": {"before": "open", "after": "closed"}}', $3, now() - interval '2 minutes') RETURNING id::int`,
      [site.id, id, site.users.agent.id],
    );
    await settle();
    expect(statusFrames(room)).toEqual([]);
    await runCron(new Date());
    expect(await room.next('status', 10_000)).toEqual({ type: 'status', status: 'closed' });
    await drained(site.id);
    expect((await deliveries(event!.id))[0]).toMatchObject({ handled: true });
  });

  it('leaves a recent pending event to its own message', async () => {
    const [event] = await rows<{ id: number }>(
      `INSERT INTO events (installation_id, record_type, record_id, kind) VALUES ($1, 'companies', 1, 'updated') RETURNING id::int`,
      [site.id],
    );
    const other = await newInstallation('dispatch-recent');
    await rows(`INSERT INTO events (installation_id, record_type, record_id, kind) VALUES ($1, 'companies', 1, 'updated')`, [other.id]);
    await runCron(new Date());
    await settle();
    const [row] = await rows<{ dispatched: boolean }>('SELECT dispatched_at IS NOT NULL AS dispatched FROM events WHERE installation_id = $1', [other.id]);
    expect(row!.dispatched).toBe(false);
    await sendJobMessage({ kind: 'events.drain', installationId: site.id });
    await drained(site.id);
    expect(event).toBeDefined();
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
