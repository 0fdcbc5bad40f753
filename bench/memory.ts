// The resident memory of a Worker's workerd process over a run, from /proc (Linux): each
// Miniflare starts a workerd of its own, so the one that appears when a Worker is started is
// that Worker's.
import { readdirSync, readFileSync } from 'node:fs';

/** The ids of the workerd processes running now. */
export function workerdPids(): Set<number> {
  const pids = new Set<number>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'workerd') pids.add(pid);
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** The workerd processes that `start` brought up (and the value it answered). */
export async function withNewWorkerd<T>(start: () => Promise<T>): Promise<{ value: T; pids: number[] }> {
  const before = workerdPids();
  const value = await start();
  return { value, pids: [...workerdPids()].filter((pid) => !before.has(pid)) };
}

/** Resident memory of these processes together, MiB (0 for one that is gone). */
export function residentMiB(pids: readonly number[]): number {
  let kib = 0;
  for (const pid of pids) {
    try {
      const line = readFileSync(`/proc/${pid}/status`, 'utf8')
        .split('\n')
        .find((l) => l.startsWith('VmRSS:'));
      kib += Number(line?.split(/\s+/)[1] ?? 0);
    } catch {
      // gone
    }
  }
  return Math.round((kib / 1024) * 10) / 10;
}

/** Samples `residentMiB(pids)` every `everyMs` until stopped; answers the samples. */
export function sampleResident(pids: readonly number[], everyMs = 500): { stop(): number[] } {
  const samples = [residentMiB(pids)];
  const timer = setInterval(() => samples.push(residentMiB(pids)), everyMs);
  return {
    stop() {
      clearInterval(timer);
      samples.push(residentMiB(pids));
      return samples;
    },
  };
}
