// How the drain treats a subscriber that fails, in workerd through the real queue: the failing
// record is held back until its next try is due while the drain reads on past it; a failed try
// waits longer each time and the fifth is the last; a try that never finished (a drain that
// died) counts too; a drain that finds the installation busy comes back on its own; and an
// update that changed nothing a subscriber watches is written already dispatched.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { newInstallation, rows } from '../support/db';
import { drained, eventsOf, type EventRow } from '../support/events';
import { workerLogLines } from '../support/logs';
import { backgroundWait, eventually } from '../support/room';
import { cleanUp, conversationInRoom, failHandling, holdDrainLock, patchConversation, statusFrames } from './support';

let site: SeededInstallation;
let key: string;

beforeEach(async () => {
  site = await newInstallation('retries');
  key = site.users.agent.apiKey;
});

afterAll(cleanUp);

const patch = (id: number, body: Record<string, unknown>) => patchConversation(key, id, body);

async function updates(id: number): Promise<EventRow[]> {
  return (await eventsOf(site.id, 'conversations', id)).filter((event) => event.kind === 'updated');
}

interface DeliveryRow {
  handled: boolean;
  attempts: number;
  last_error: string | null;
  gave_up: boolean;
  /** seconds from now to its next try */
  due_in: number | null;
}

async function delivery(eventId: number): Promise<DeliveryRow | undefined> {
  const [row] = await rows<DeliveryRow>(
    `SELECT handled_at IS NOT NULL AS handled, attempts, last_error, gave_up_at IS NOT NULL AS gave_up,
            extract(epoch FROM next_attempt_at - now())::float8 AS due_in
       FROM event_deliveries WHERE event_id = $1 AND subscriber = 'conversations.tellRoom'`,
    [eventId],
  );
  return row;
}

describe('a subscriber that fails', () => {
  it('holds back that record until its next try is due, while the drain reads on past it', async () => {
    const failing = await conversationInRoom(key);
    const other = await conversationInRoom(key);
    // this conversation's events fail until the first failure is recorded (a try alone, or the
    // lane it shared with the others, which then runs its tries one at a time to find whose it is)
    const undo = await failHandling(failing.id);
    await patch(failing.id, { status: 'closed' });
    await patch(failing.id, { status: 'open' });
    await patch(other.id, { status: 'closed' });
    const [first, second] = await updates(failing.id);
    const [later] = await updates(other.id);
    await eventually(async () => ((await delivery(first!.id))?.last_error ? true : undefined), backgroundWait(10_000));
    await undo();
    expect(await other.room.next('status', 10_000)).toEqual({ type: 'status', status: 'closed' });
    await drained(site.id, 30_000);

    // The failed try stays counted; the next one was due 5 s after it, and succeeded.
    expect(await delivery(first!.id)).toMatchObject({
      handled: true,
      attempts: 1,
      gave_up: false,
      due_in: null,
      last_error: expect.stringMatching(/^\w+/),
    });
    expect(await delivery(second!.id)).toMatchObject({ handled: true, attempts: 0 });
    // The other conversation's event shared the subscriber's lane with the failure: it was done again, its try its own.
    expect(await delivery(later!.id)).toMatchObject({ handled: true, attempts: 0, last_error: null });
    const [times] = await rows<{ retried_after: number; later_before_first: boolean; second_after_first: boolean }>(
      `SELECT extract(epoch FROM f.handled_at - e.occurred_at)::float8 AS retried_after,
              l.handled_at < f.handled_at AS later_before_first, s.handled_at >= f.handled_at AS second_after_first
         FROM events e, event_deliveries f, event_deliveries s, event_deliveries l
        WHERE e.id = $1 AND f.event_id = $1 AND s.event_id = $2 AND l.event_id = $3
          AND f.subscriber = 'conversations.tellRoom' AND s.subscriber = f.subscriber AND l.subscriber = f.subscriber`,
      [first!.id, second!.id, later!.id],
    );
    expect(times!.retried_after).toBeGreaterThanOrEqual(4.9);
    // The other conversation's event, later than both, did not wait; this record's second event did.
    expect(times).toMatchObject({ later_before_first: true, second_after_first: true });
    // The room was told each status once, in order (the retried telling was one it had applied).
    expect(statusFrames(failing.room)).toEqual([
      { type: 'status', status: 'closed' },
      { type: 'status', status: 'open' },
    ]);
  }, 60_000);

  it('is given up after its fifth failed try, and the event is dispatched', async () => {
    const { id } = await conversationInRoom(key);
    const release = await holdDrainLock(site.id);
    try {
      await patch(id, { status: 'closed' });
      const [event] = await updates(id);
      // Four tries failed before this one.
      await rows(
        `INSERT INTO event_deliveries (event_id, subscriber, attempts, last_error) VALUES ($1, 'conversations.tellRoom', 4, 'Error')`,
        [event!.id],
      );
      await failHandling(id);
    } finally {
      await release();
    }
    await drained(site.id);
    const [event] = await updates(id);
    expect(await delivery(event!.id)).toMatchObject({
      handled: false,
      attempts: 5,
      gave_up: true,
      due_in: null,
      last_error: expect.stringMatching(/^\w+/),
    });
    const lines = await eventually(async () => {
      const found = await workerLogLines({
        message: 'events: subscriber gave up on an event',
        event: String(event!.id),
      });
      return found.length ? found : undefined;
    });
    expect(lines[0]).toMatchObject({ level: 'error', subscriber: 'conversations.tellRoom', attempts: 5 });
  }, 40_000);
});

describe('a try that never finished', () => {
  it('counts: past five tries begun, the event is given up without trying it again', async () => {
    const { id, room } = await conversationInRoom(key);
    // The lock held makes the drains wait: they put their message back on the queue and come back on their own.
    const release = await holdDrainLock(site.id);
    try {
      await patch(id, { status: 'closed' });
      const [event] = await updates(id);
      // Five tries began and none finished: each drain died while it had the event (its round rolled back).
      await rows(
        `INSERT INTO event_deliveries (event_id, subscriber, attempts) VALUES ($1, 'conversations.tellRoom', 5)`,
        [event!.id],
      );
      await new Promise((resolve) => setTimeout(resolve, 3_000));
    } finally {
      await release();
    }
    await drained(site.id);
    const [event] = await updates(id);
    expect(await delivery(event!.id)).toMatchObject({
      handled: false,
      attempts: 6,
      gave_up: true,
      last_error: 'NoAnswer',
    });
    // The room was never told: the next change's frame is the first status frame it gets.
    await patch(id, { status: 'open' });
    expect(await room.next('status', 10_000)).toEqual({ type: 'status', status: 'open' });
    expect(statusFrames(room)).toEqual([{ type: 'status', status: 'open' }]);
  }, 40_000);
});

describe('what a subscriber watches', () => {
  it('an update that changed no watched property is written dispatched, with no delivery; one that did waits for the room', async () => {
    const { id, room } = await conversationInRoom(key);
    await patch(id, { subject: 'Billing question' });
    const [subjectChange] = await updates(id);
    expect(subjectChange).toMatchObject({
      data: { subject: { before: null, after: 'Billing question' } },
      dispatched: true,
    });
    expect(await delivery(subjectChange!.id)).toBeUndefined();

    await patch(id, { status: 'closed', subject: 'Billing' });
    expect(await room.next('status', 10_000)).toEqual({ type: 'status', status: 'closed' });
    await drained(site.id);
    const [, statusChange] = await updates(id);
    expect(await delivery(statusChange!.id)).toMatchObject({ handled: true, attempts: 0 });
  });
});
