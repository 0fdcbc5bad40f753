// Where the CPU went during a load run, from /proc (Linux): cores used by workerd, Postgres, this
// process (the SQL-over-HTTP and WebSocket stand-ins run in it), the load generator, and
// anything else on the machine. On a small machine this says what limits what.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

type Group = 'workerd' | 'postgres' | 'stand-ins' | 'load' | 'other';
/** Cores used by each group; `steal`: cores the hypervisor gave to other guests meanwhile. */
export type CpuUse = Record<Group | 'steal', number>;
interface Snapshot {
  at: number;
  ticks: Map<number, { group: Group; ticks: number }>;
  stealTicks: number;
}

function groupOf(pid: number, comm: string, args: string): Group {
  if (pid === process.pid) return 'stand-ins';
  if (comm === 'workerd') return 'workerd';
  if (comm === 'postgres') return 'postgres';
  if (args.includes('load-child')) return 'load';
  return 'other';
}

export function snapshot(): Snapshot {
  const ticks: Snapshot['ticks'] = new Map();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' '); // fields[0] is field 3 (state)
      const used = Number(fields[11]) + Number(fields[12]); // utime + stime
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      ticks.set(pid, { group: groupOf(pid, comm, args), ticks: used });
    } catch {
      // gone meanwhile
    }
  }
  // /proc/stat: "cpu user nice system idle iowait irq softirq steal ..."
  const stealTicks = Number(readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/)[8] ?? 0);
  return { at: Date.now(), ticks, stealTicks };
}

/** Cores used on average between two snapshots, by group (a process born in between counts from 0). */
export function coresUsed(before: Snapshot, after: Snapshot): CpuUse {
  const seconds = (after.at - before.at) / 1000;
  const use: CpuUse = { workerd: 0, postgres: 0, 'stand-ins': 0, load: 0, other: 0, steal: (after.stealTicks - before.stealTicks) / TICKS_PER_SECOND / seconds };
  for (const [pid, now] of after.ticks) {
    const delta = now.ticks - (before.ticks.get(pid)?.ticks ?? 0);
    if (delta > 0) use[now.group] += delta / TICKS_PER_SECOND / seconds;
  }
  for (const key of Object.keys(use) as Array<keyof CpuUse>) use[key] = Math.round(use[key] * 100) / 100;
  return use;
}
