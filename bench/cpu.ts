// Where the CPU went during a load run, from /proc (Linux): cores used by workerd, Postgres, this
// process (the SQL-over-HTTP and WebSocket stand-ins run in it), the load generator, and
// anything else on the machine. On a small machine this says what limits what.
//
// workerd, Postgres and the load generator count as such only when this process started them
// (they descend from it): another session's test run on the same machine has its own workerd and
// Postgres, which are `other`. With DATABASE_URL naming a server, every Postgres process counts.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

type Group = 'workerd' | 'postgres' | 'stand-ins' | 'load' | 'other';
/** Cores used by each group; `steal`: cores the hypervisor gave to other guests meanwhile. */
export type CpuUse = Record<Group | 'steal', number>;
interface Snapshot {
  at: number;
  ticks: Map<number, { group: Group; ticks: number }>;
  stealTicks: number;
  /** CPU of Postgres processes that exited and were reaped by another Postgres process (cutime + cstime) */
  reapedPostgresTicks: number;
}

const externalPostgres = Boolean(process.env.DATABASE_URL);

function groupOf(pid: number, comm: string, args: string, ours: boolean): Group {
  if (pid === process.pid) return 'stand-ins';
  if (comm === 'postgres' && (ours || externalPostgres)) return 'postgres';
  if (!ours) return 'other';
  if (comm === 'workerd') return 'workerd';
  if (args.includes('load-child')) return 'load';
  return 'other';
}

/** Every process of the machine, from /proc, and whether this process started it (it descends from it). */
export function processes(): {
  list: Array<{ pid: number; ppid: number; comm: string; used: number; reaped: number }>;
  ours(pid: number): boolean;
} {
  const list: Array<{ pid: number; ppid: number; comm: string; used: number; reaped: number }> = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' '); // fields[0] is field 3 (state)
      // utime + stime; cutime + cstime: children that exited and were reaped
      list.push({
        pid,
        ppid: Number(fields[1]),
        comm,
        used: Number(fields[11]) + Number(fields[12]),
        reaped: Number(fields[13]) + Number(fields[14]),
      });
    } catch {
      // gone meanwhile
    }
  }
  const parent = new Map(list.map((p) => [p.pid, p.ppid]));
  const ours = (pid: number) => {
    for (let at: number | undefined = pid, hops = 0; at && hops < 64; at = parent.get(at), hops++)
      if (at === process.pid) return true;
    return false;
  };
  return { list, ours };
}

export function snapshot(): Snapshot {
  const { list: processesNow, ours } = processes();
  const ticks: Snapshot['ticks'] = new Map();
  let reapedPostgresTicks = 0;
  for (const p of processesNow) {
    let args = '';
    try {
      args = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    } catch {
      continue; // gone meanwhile
    }
    const group = groupOf(p.pid, p.comm, args, ours(p.pid));
    ticks.set(p.pid, { group, ticks: p.used });
    // A backend that served one connection (a Pool per request) is gone by the second
    // snapshot; the postmaster reaps it and holds its time as cutime + cstime.
    if (group === 'postgres') reapedPostgresTicks += p.reaped;
  }
  // /proc/stat: "cpu user nice system idle iowait irq softirq steal ..."
  const stealTicks = Number(readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/)[8] ?? 0);
  return { at: Date.now(), ticks, stealTicks, reapedPostgresTicks };
}

/** Cores used on average between two snapshots, by group (a process born in between counts from 0). */
export function coresUsed(before: Snapshot, after: Snapshot): CpuUse {
  const seconds = (after.at - before.at) / 1000;
  const use: CpuUse = {
    workerd: 0,
    postgres: 0,
    'stand-ins': 0,
    load: 0,
    other: 0,
    steal: (after.stealTicks - before.stealTicks) / TICKS_PER_SECOND / seconds,
  };
  for (const [pid, now] of after.ticks) {
    const delta = now.ticks - (before.ticks.get(pid)?.ticks ?? 0);
    if (delta > 0) use[now.group] += delta / TICKS_PER_SECOND / seconds;
  }
  // Postgres backends that ended in between (their whole life; those born in between count fully anyway).
  use.postgres += Math.max(0, after.reapedPostgresTicks - before.reapedPostgresTicks) / TICKS_PER_SECOND / seconds;
  for (const key of Object.keys(use) as Array<keyof CpuUse>) use[key] = Math.round(use[key] * 100) / 100;
  return use;
}

/** Resident memory of the workerd processes this process started, in MiB (the soak and the zip benchmarks). */
export function workerdMemoryMiB(): number {
  const { list, ours } = processes();
  let kib = 0;
  for (const { pid } of list.filter((p) => p.comm === 'workerd' && ours(p.pid))) {
    try {
      kib += Number(/^VmRSS:\s*(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return kib / 1024;
}
