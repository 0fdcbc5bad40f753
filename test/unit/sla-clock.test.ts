// The SLA clocks as a pure function: pauses counted when a target is reached during one, a breach
// kept through a pause, the next reply's clock, reopening. Calendar time, minutes from T0.
import { describe, expect, it } from 'vitest';
import {
  advanceClocks,
  emptySlaState,
  type AppliedPolicy,
  type ClockChange,
  type SlaState,
} from '../../src/resources/slas/sla-clock';

const T0 = Date.parse('2026-01-05T10:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const policy: AppliedPolicy = {
  id: 1,
  targets: { firstResponse: 30, nextReply: 20, resolution: 60 },
  warnings: { firstResponse: 10 },
};

/** Runs the changes in order, each judged at its own time, answering the last state. */
function run(changes: (ClockChange & { status: string; repliedAt?: number })[]) {
  let state: SlaState = emptySlaState();
  let result = advanceClocks(
    state,
    { createdAt: at(0), statusCode: 'active', firstRepliedAt: null },
    { at: at(0), created: true },
    policy,
    at(0),
  );
  for (const change of changes) {
    state = result;
    const facts = {
      createdAt: at(0),
      statusCode: change.status,
      firstRepliedAt: change.repliedAt === undefined ? null : at(change.repliedAt),
    };
    result = advanceClocks(state, facts, change, policy, change.at);
  }
  return result;
}

describe('the SLA clocks', () => {
  it('start with the due times of a new ticket, and warn inside the warning time', () => {
    const fresh = run([]);
    expect(fresh).toMatchObject({
      firstResponse: { due: at(30), status: 'pending' },
      resolution: { due: at(60), status: 'pending' },
      nextReply: { due: null, status: null },
      checkAt: at(20),
    });
    expect(run([{ at: at(25), status: 'active' }]).firstResponse.status).toBe('warning');
    expect(run([{ at: at(31), status: 'active' }])).toMatchObject({
      firstResponse: { status: 'breached' },
      breached: true,
    });
  });

  it('count a pause going on when a target is reached: solved after three days of waiting is in time', () => {
    const result = run([
      { at: at(10), status: 'waiting', statusFrom: 'active', statusTo: 'waiting', teammateReply: true, repliedAt: 10 },
      { at: at(3 * 24 * 60), status: 'solved', statusFrom: 'waiting', statusTo: 'solved', repliedAt: 10 },
    ]);
    expect(result.resolution.status).toBe('met');
    expect(result.firstResponse.status).toBe('met');
    expect(result.breached).toBe(false);
  });

  it('keep a breach through a pause, and pause only what was still in time', () => {
    const result = run([{ at: at(45), status: 'waiting', statusFrom: 'active', statusTo: 'waiting' }]);
    expect(result).toMatchObject({
      firstResponse: { status: 'breached' },
      resolution: { status: 'paused' },
      breached: true,
      checkAt: null,
    });
    // back after an hour: the resolution's due time moved on by it
    const resumed = advanceClocks(
      result,
      { createdAt: at(0), statusCode: 'active', firstRepliedAt: null },
      { at: at(105), statusFrom: 'waiting', statusTo: 'active' },
      policy,
      at(105),
    );
    expect(resumed.resolution).toEqual({ due: at(120), status: 'pending' });
    expect(resumed.firstResponse.status).toBe('breached');
  });

  it('run the next reply from a customer message after the first response to the teammate answer, counting pauses', () => {
    const result = run([
      { at: at(5), status: 'active', teammateReply: true, repliedAt: 5 },
      { at: at(40), status: 'active', customerReply: true, repliedAt: 5 },
    ]);
    expect(result.nextReply).toEqual({ due: at(60), status: 'pending' });
    const answered = advanceClocks(
      result,
      { createdAt: at(0), statusCode: 'active', firstRepliedAt: at(5) },
      { at: at(55), teammateReply: true },
      policy,
      at(55),
    );
    expect(answered.nextReply).toEqual({ due: at(60), status: 'met' });
    expect(answered.nextReplySince).toBeNull();
  });
});
