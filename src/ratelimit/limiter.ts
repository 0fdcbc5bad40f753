import { DurableObject } from 'cloudflare:workers';

/** What the limiter grants: how many requests of the ask, how many the minute has left after, and when it ends (epoch seconds). */
export interface Grant {
  granted: number;
  remaining: number;
  resetAt: number;
}

/** Counters the limiter keeps before it forgets ended minutes. */
const PRUNE_AT = 10_000;

/**
 * One installation's request counters (a Durable Object per installation, `idFromName`): each
 * caller's count in the current minute, where every isolate in every location asks, so the limit
 * holds across them all. Counts live in memory: a limiter that restarts forgets the minute, which
 * at worst lets one more minute's worth through.
 */
// (no bindings of its own: not typed by the Worker's Env, which names this class)
export class RateLimiter extends DurableObject {
  private readonly counters = new Map<string, { minute: number; used: number }>();

  /**
   * Up to `want` requests of `limit` a minute for `key`, as many as the minute has left; first
   * takes back `returned` requests an isolate was granted this minute and will not spend (its
   * limit changed).
   */
  grant(key: string, limit: number, want: number, returned = 0): Grant {
    const now = Date.now();
    const minute = Math.floor(now / 60_000);
    let counter = this.counters.get(key);
    if (!counter || counter.minute !== minute) {
      if (this.counters.size >= PRUNE_AT)
        for (const [name, old] of this.counters) if (old.minute !== minute) this.counters.delete(name);
      counter = { minute, used: 0 };
      this.counters.set(key, counter);
    }
    counter.used = Math.max(0, counter.used - returned);
    const granted = Math.max(0, Math.min(want, limit - counter.used));
    counter.used += granted;
    return { granted, remaining: Math.max(0, limit - counter.used), resetAt: (minute + 1) * 60 };
  }
}
