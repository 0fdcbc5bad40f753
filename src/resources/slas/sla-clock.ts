import type { SLA_TARGET_STATES } from '../../db/schema';
import { addClockMinutes, clockMinutesBetween, type WorkingHours } from '../../lib/working-time';

/**
 * A ticket's SLA clocks, as a pure function of what it held and what just happened: no database
 * here (`sla-tickets.ts` loads and stores). Three targets run on the policy's clock (its business
 * hours, else calendar time):
 *
 * - first response: from creation to the first teammate reply;
 * - next reply: from a customer message (after the first response) to the teammate's next reply;
 * - resolution: from creation to solved or closed (reopening runs it again).
 *
 * The clocks stop while the ticket waits on the customer (status code `waiting`) and while it is
 * solved, closed or spam: a due time moves on by the clock minutes spent stopped. A target reached
 * is `met` when in time and `breached` when late; one still running is `pending`, `warning` (inside
 * its warning time), `paused` (the clocks stopped) or `breached` (its due time passed).
 */

export type TargetState = (typeof SLA_TARGET_STATES)[number];
export type TargetName = 'firstResponse' | 'nextReply' | 'resolution';

export interface Target {
  due: Date | null;
  status: TargetState | null;
}

export interface SlaState {
  slaId: number | null;
  firstResponse: Target;
  nextReply: Target;
  resolution: Target;
  pausedSince: Date | null;
  pausedMinutes: number;
  nextReplySince: Date | null;
  nextReplyPausedBase: number;
}

/** What happened at `at`: a status move (by code), a reply, or nothing (a property changed, the cron looks). */
export interface ClockChange {
  at: Date;
  created?: boolean;
  statusFrom?: string;
  statusTo?: string;
  teammateReply?: boolean;
  customerReply?: boolean;
}

/** The ticket as the clocks need it. */
export interface TicketFacts {
  createdAt: Date;
  /** its status code now */
  statusCode: string;
  /** the first teammate reply, if any */
  firstRepliedAt: Date | null;
}

/** The policy that applies, with the ticket's priority's targets in clock minutes. */
export interface AppliedPolicy {
  id: number;
  hours?: WorkingHours;
  targets: Partial<Record<TargetName, number>>;
  /** minutes before the due time a warning comes, by target */
  warnings: Partial<Record<TargetName, number>>;
}

export interface ClockResult extends SlaState {
  /** some target is breached */
  breached: boolean;
  /** when the cron must look again: the next warning or breach of a running target */
  checkAt: Date | null;
}

const PAUSED = new Set(['waiting', 'solved', 'closed', 'spam']);
const RESOLVED = new Set(['solved', 'closed']);
const NONE: Target = { due: null, status: null };
const MINUTE_MS = 60_000;

export const emptySlaState = (): SlaState => ({
  slaId: null,
  firstResponse: NONE,
  nextReply: NONE,
  resolution: NONE,
  pausedSince: null,
  pausedMinutes: 0,
  nextReplySince: null,
  nextReplyPausedBase: 0,
});

const finished = (target: Target) => target.status === 'met' || target.status === 'breached';

/** Moves the clocks through one change and answers the state they are in at `now`. */
export function advanceClocks(
  before: SlaState,
  ticket: TicketFacts,
  change: ClockChange,
  policy: AppliedPolicy | undefined,
  now: Date,
): ClockResult {
  const s: SlaState = { ...before };
  const { at } = change;
  const hours = policy?.hours;
  const minutes = (from: Date, to: Date) => clockMinutesBetween(hours, from, to);

  // stopping and starting the clocks
  if (change.created && PAUSED.has(ticket.statusCode) && !s.pausedSince) s.pausedSince = at;
  if (change.statusTo !== undefined) {
    const isPaused = PAUSED.has(change.statusTo);
    if (isPaused && !s.pausedSince) s.pausedSince = at;
    if (!isPaused && s.pausedSince) {
      s.pausedMinutes += minutes(s.pausedSince, at);
      s.pausedSince = null;
    }
  }

  const policyChanged = (policy?.id ?? null) !== s.slaId;
  s.slaId = policy?.id ?? null;
  const target = (name: TargetName) => policy?.targets[name];
  const due = (start: Date, name: TargetName, pausedSinceStart: number) =>
    addClockMinutes(hours, start, target(name)! + pausedSinceStart) ?? null;
  /** Clock minutes stood still up to `moment`: the pauses that ended and the one going on. */
  const pausedBy = (moment: Date) =>
    s.pausedMinutes + (s.pausedSince && s.pausedSince < moment ? minutes(s.pausedSince, moment) : 0);
  const finish = (dueAt: Date | null, reached: Date): Target => ({
    due: dueAt,
    status: dueAt === null || reached <= dueAt ? 'met' : 'breached',
  });
  const running = (dueAt: Date | null, name: TargetName): Target => {
    // stopped: breached only if it was before the clocks stopped (its due time does not count the pause yet)
    if (s.pausedSince) return { due: dueAt, status: dueAt !== null && dueAt <= s.pausedSince ? 'breached' : 'paused' };
    if (dueAt === null) return { due: null, status: 'pending' };
    if (now >= dueAt) return { due: dueAt, status: 'breached' };
    const warning = policy?.warnings[name];
    if (warning !== undefined && now.getTime() >= dueAt.getTime() - warning * MINUTE_MS)
      return { due: dueAt, status: 'warning' };
    return { due: dueAt, status: 'pending' };
  };

  // first response
  const responded = ticket.firstRepliedAt !== null && ticket.firstRepliedAt <= at;
  if (target('firstResponse') === undefined) s.firstResponse = NONE;
  else if (responded && finished(s.firstResponse) && !policyChanged) s.firstResponse = { ...s.firstResponse };
  else if (responded)
    s.firstResponse = finish(
      due(ticket.createdAt, 'firstResponse', pausedBy(ticket.firstRepliedAt!)),
      ticket.firstRepliedAt!,
    );
  else s.firstResponse = running(due(ticket.createdAt, 'firstResponse', s.pausedMinutes), 'firstResponse');

  // next reply: a customer message after the first response starts it, the teammate's reply ends it
  if (change.customerReply && responded && !s.nextReplySince) {
    s.nextReplySince = at;
    s.nextReplyPausedBase = s.pausedMinutes + (s.pausedSince ? minutes(s.pausedSince, at) : 0);
  }
  const nextReplyDue = (moment?: Date) =>
    s.nextReplySince
      ? due(s.nextReplySince, 'nextReply', (moment ? pausedBy(moment) : s.pausedMinutes) - s.nextReplyPausedBase)
      : null;
  if (target('nextReply') === undefined) {
    s.nextReply = NONE;
  } else if (change.teammateReply && s.nextReplySince) {
    s.nextReply = finish(nextReplyDue(at), at);
    s.nextReplySince = null;
  } else if (s.nextReplySince) {
    s.nextReply = running(nextReplyDue(), 'nextReply');
  } else if (policyChanged) {
    s.nextReply = NONE;
  }
  if (change.teammateReply) s.nextReplySince = null;

  // resolution: reached by a move to solved or closed, run again by a move out of them
  const resolvedNow = change.statusTo !== undefined ? RESOLVED.has(change.statusTo) : RESOLVED.has(ticket.statusCode);
  const justResolved =
    change.statusTo !== undefined &&
    RESOLVED.has(change.statusTo) &&
    !(change.statusFrom !== undefined && RESOLVED.has(change.statusFrom));
  if (target('resolution') === undefined) s.resolution = NONE;
  else if (resolvedNow && finished(s.resolution) && !policyChanged && !justResolved) s.resolution = { ...s.resolution };
  // a pause going on when it was solved counts (the one the move to solved begins is none yet)
  else if (resolvedNow) s.resolution = finish(due(ticket.createdAt, 'resolution', pausedBy(at)), at);
  else s.resolution = running(due(ticket.createdAt, 'resolution', s.pausedMinutes), 'resolution');

  const targets = [s.firstResponse, s.nextReply, s.resolution];
  const checks = [
    [s.firstResponse, 'firstResponse'],
    [s.nextReply, 'nextReply'],
    [s.resolution, 'resolution'],
  ] as const;
  let checkAt: number | null = null;
  for (const [t, name] of checks) {
    if (!t.due || (t.status !== 'pending' && t.status !== 'warning')) continue;
    const warning = policy?.warnings[name];
    const next =
      t.status === 'pending' && warning !== undefined
        ? Math.max(now.getTime(), t.due.getTime() - warning * MINUTE_MS)
        : t.due.getTime();
    checkAt = checkAt === null ? next : Math.min(checkAt, next);
  }
  return {
    ...s,
    breached: targets.some((t) => t.status === 'breached'),
    checkAt: checkAt === null ? null : new Date(checkAt),
  };
}
