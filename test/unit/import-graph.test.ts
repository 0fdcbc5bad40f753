import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : full.endsWith('.ts') ? [full] : [];
  });
}

/** A module of data a file imports (the recorded example answers, a page of docs/): it imports nothing. */
const DATA = /\.(json|md)$/;

/** Every relative import of a file, type-only ones included, resolved to a file; data modules left out. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\(\s*)'(\.{1,2}\/[^']+)'/g)].map((match) => match[1]!);
  return specifiers.flatMap((specifier) => {
    const base = path.resolve(path.dirname(file), specifier);
    if (DATA.test(base) && existsSync(base)) return [];
    for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) if (existsSync(candidate)) return [candidate];
    throw new Error(`${path.relative(src, file)}: cannot resolve ${specifier}`);
  });
}

const files = filesUnder(src);
const graph = new Map(files.map((file) => [file, importsOf(file)]));
const rel = (file: string) => path.relative(src, file);
const folder = (name: string) => path.join(src, name) + path.sep;

/** The imports from files under the folder `from` to files under the folder `to`, as `file -> target`. */
const importsAcross = (from: string, to: string): string[] =>
  files
    .filter((file) => file.startsWith(folder(from)))
    .flatMap((file) =>
      graph
        .get(file)!
        .filter((target) => target.startsWith(folder(to)))
        .map((target) => `${rel(file)} -> ${rel(target)}`),
    );

/** The import circles: each as the files around it, starting from its smallest. */
function cycles(): string[][] {
  const found = new Map<string, string[]>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') {
        const circle = stack.slice(stack.indexOf(next)).map(rel);
        const start = circle.indexOf([...circle].sort()[0]!);
        const normal = [...circle.slice(start), ...circle.slice(0, start)];
        found.set(normal.join(' -> '), normal);
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return [...found.values()];
}

describe('the source tree', () => {
  it('has no import circles, type-only imports included', () => {
    expect(cycles().map((circle) => circle.join(' -> '))).toEqual([]);
  });

  it('reaches the engine only through engine/index.ts', () => {
    const engine = path.join(src, 'engine');
    const offenders = files
      .filter((file) => !file.startsWith(engine + path.sep))
      .flatMap((file) =>
        graph
          .get(file)!
          .filter((target) => target.startsWith(engine + path.sep) && target !== path.join(engine, 'index.ts'))
          .map((target) => `${rel(file)} -> ${rel(target)}`),
      );
    expect(offenders).toEqual([]);
  });

  it('keeps the database layer free of the engine, and the room free of the app', () => {
    const reaches = (from: string, to: (file: string) => boolean): string[] => {
      const seen = new Set<string>();
      const walk = (file: string) => {
        if (seen.has(file)) return;
        seen.add(file);
        for (const next of graph.get(file) ?? []) walk(next);
      };
      walk(from);
      return [...seen].filter(to).map(rel);
    };
    for (const file of files.filter((f) => f.startsWith(path.join(src, 'db') + path.sep))) {
      expect(
        reaches(file, (f) => f.startsWith(path.join(src, 'engine') + path.sep)),
        rel(file),
      ).toEqual([]);
    }
    for (const file of files.filter((f) => f.startsWith(path.join(src, 'realtime') + path.sep))) {
      expect(
        reaches(file, (f) => f === path.join(src, 'app.ts') || f.startsWith(path.join(src, 'modules') + path.sep)),
        rel(file),
      ).toEqual([]);
    }
  });

  it('imports nothing back up: the composition root (index.ts, app.ts, module-list.ts, pipeline/) only from above it, and http/ none of the layers the pipeline composes over it', () => {
    const at = (...parts: string[]) => path.join(src, ...parts);
    const under = (folder: string) => (file: string) => file.startsWith(at(folder) + path.sep);
    const root = new Set([at('index.ts'), at('app.ts'), at('module-list.ts')]);
    const inRoot = (file: string) => root.has(file) || under('pipeline')(file);
    const above = ['auth', 'ratelimit', 'idempotency', 'pipeline', 'resources', 'events', 'jobs', 'engine'].map(under);
    const offenders = files.flatMap((file) =>
      graph
        .get(file)!
        .filter(
          (target) =>
            (inRoot(target) && !inRoot(file)) || (under('http')(file) && above.some((isAbove) => isAbove(target))),
        )
        .map((target) => `${rel(file)} -> ${rel(target)}`),
    );
    expect(offenders).toEqual([]);
  });

  it("imports a route file (`.route.ts`, one operation) or a subscriber's (`.subscriber.ts`) only from its group's module index", () => {
    const offenders = files.flatMap((file) =>
      graph
        .get(file)!
        .filter((target) => target.endsWith('.route.ts') || target.endsWith('.subscriber.ts'))
        .filter((target) => !(path.basename(file) === 'index.ts' && target.startsWith(path.dirname(file) + path.sep)))
        .map((target) => `${rel(file)} -> ${rel(target)}`),
    );
    expect(offenders).toEqual([]);
  });

  it("keeps the room's protocol in realtime/: it imports nothing of a resource group", () => {
    expect(importsAcross('realtime', 'resources')).toEqual([]);
  });

  it('keeps the pure helpers of lib/ free of the HTTP layer', () => {
    expect(importsAcross('lib', 'http')).toEqual([]);
  });

  it("keeps the widget's browser code to modules that import nothing (the Worker's code stays out of customers' pages)", () => {
    const browser = path.join(src, 'widget', 'browser') + path.sep;
    const reached = new Set<string>();
    const walk = (file: string) => {
      for (const next of graph.get(file) ?? []) if (!reached.has(next)) (reached.add(next), walk(next));
    };
    for (const file of files.filter((f) => f.startsWith(browser))) walk(file);
    const outside = [...reached].filter((file) => !file.startsWith(browser));
    expect(outside.map(rel)).toEqual(['realtime/room-limits.ts']);
    for (const file of outside) expect(readFileSync(file, 'utf8'), rel(file)).not.toMatch(/^import /m);
  });

  it('lists every folder under src/resources in the one list of modules', () => {
    const list = readFileSync(path.join(src, 'module-list.ts'), 'utf8');
    for (const folder of readdirSync(path.join(src, 'resources'))) {
      expect(list, folder).toContain(`'./resources/${folder}'`);
    }
  });
});
