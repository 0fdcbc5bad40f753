// A V8 CPU profile (`Profiler.stop`'s, through workerd's inspector) by self time per function.

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

/** Self time by function (name, file and line), the largest first. */
export function bySelfTime(profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = nodes.get(id)!.callFrame;
    const key = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').pop()}:${frame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  return { total, rows: [...self].sort((a, b) => b[1] - a[1]) };
}

/** A stretch of samples in which the isolate never went idle: how long, and what took most of it. */
export interface BusyStretch {
  ms: number;
  top: Array<[string, number]>;
}

/**
 * The isolate's busy stretches: runs of samples without an `(idle)` one, the longest first. JS in
 * an isolate runs one task at a time, so whatever arrives during a stretch (a queue batch, a
 * fetch's answer, a statement's result) waits for its end.
 */
export function busyStretches(profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const stretches: BusyStretch[] = [];
  let current: Map<string, number> | undefined;
  let ms = 0;
  const close = () => {
    if (current) stretches.push({ ms, top: [...current].sort((a, b) => b[1] - a[1]).slice(0, 3) });
    current = undefined;
    ms = 0;
  };
  profile.samples.forEach((id, i) => {
    const name = nodes.get(id)!.callFrame.functionName || '(anonymous)';
    // a sample's delta is the time since the one before: it belongs to the stretch it ends
    const delta = (profile.timeDeltas[i] ?? 0) / 1000;
    if (name === '(idle)') return close();
    current ??= new Map();
    ms += delta;
    current.set(name, (current.get(name) ?? 0) + delta);
  });
  close();
  return stretches.sort((a, b) => b.ms - a.ms);
}
