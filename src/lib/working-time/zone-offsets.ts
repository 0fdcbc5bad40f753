/**
 * UTC offsets of a time zone over time, from Intl alone. An offset is in milliseconds, local
 * wall-clock time minus UTC (Asia/Kolkata: +5.5 h).
 */

const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** One formatter per zone: building one costs far more than using it. Throws RangeError for an unknown zone. */
export function zoneFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The zone's offset at the instant (epoch milliseconds). */
export function offsetAt(timeZone: string, instant: number): number {
  const parts: Record<string, number> = {};
  for (const part of zoneFormatter(timeZone).formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  // The formatted wall time has whole seconds; compare it with the instant's whole second.
  const second = instant - (((instant % 1000) + 1000) % 1000);
  return wall - second;
}

/** A stretch of time `[start, end)` during which the zone keeps one offset. */
export interface OffsetPiece {
  start: number;
  end: number;
  offset: number;
}

/** The first instant in `(before, after]` whose offset is not `offset`, which `after`'s is not. */
function transitionBetween(timeZone: string, offset: number, before: number, after: number): number {
  let lo = before;
  let hi = after;
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (offsetAt(timeZone, mid) === offset) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * `[from, to)` cut at the zone's offset changes. The zone is sampled once a day and each change
 * found is pinned to the millisecond, so a change and its reversal within one day (no zone does
 * that) would go unseen.
 */
export function offsetPieces(timeZone: string, from: number, to: number): OffsetPiece[] {
  const pieces: OffsetPiece[] = [];
  let start = from;
  let offset = offsetAt(timeZone, from);
  let probe = from;
  while (probe < to) {
    const next = Math.min(probe + DAY_MS, to);
    if (offsetAt(timeZone, next) === offset) {
      probe = next;
      continue;
    }
    const change = transitionBetween(timeZone, offset, probe, next);
    if (change >= to) break;
    pieces.push({ start, end: change, offset });
    start = change;
    offset = offsetAt(timeZone, change);
    probe = change;
  }
  pieces.push({ start, end: to, offset });
  return pieces;
}
