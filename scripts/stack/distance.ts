// A far database, on demand: HELPDESK_DB_RTT_MS=150 makes both stand-ins of the Neon endpoint
// delay every exchange with Postgres by that round trip, half each way, as a database in another
// region would. Unset or 0: no delay and no timers at all.
import { setTimeout as sleep } from 'node:timers/promises';

export const DB_RTT_VARIABLE = 'HELPDESK_DB_RTT_MS';
const MAX_RTT_MS = 2000;

/** The round trip asked for, in ms (0 when unset); a value that is not one stops the stack's start. */
export function databaseRttMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[DB_RTT_VARIABLE]?.trim() ?? '';
  if (raw === '') return 0;
  const ms = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : NaN;
  if (!(ms <= MAX_RTT_MS)) {
    throw new Error(
      `${DB_RTT_VARIABLE} is the database's round-trip time for the local stack, in milliseconds from 0 to ${MAX_RTT_MS}; "${raw}" is not one`,
    );
  }
  return ms;
}

/** Waits at least `ms` by the monotonic clock (a timer may fire a little early by it). */
export async function pause(ms: number): Promise<void> {
  const due = performance.now() + ms;
  for (let left = ms; left > 0; left = due - performance.now()) await sleep(Math.ceil(left));
}

/**
 * One direction of a link `ms` long: each action runs `ms` after it was handed over, in the order
 * handed over (a queue drained by one timer, so nothing overtakes). With 0 it runs at once.
 */
export function delayedLane(ms: number): (action: () => void) => void {
  if (ms <= 0) return (action) => action();
  const queue: Array<{ due: number; action: () => void }> = [];
  let timer: NodeJS.Timeout | undefined;
  const drain = () => {
    timer = undefined;
    try {
      for (let next = queue[0]; next && next.due <= performance.now(); next = queue[0]) queue.shift()!.action();
    } finally {
      const next = queue[0];
      if (next) timer = setTimeout(drain, Math.ceil(next.due - performance.now()));
    }
  };
  return (action) => {
    queue.push({ due: performance.now() + ms, action });
    timer ??= setTimeout(drain, Math.ceil(ms));
  };
}
