// docs/events.md's table of subscribers is made from the modules (`Subscriber.does`, `on`, and the
// file that declares each), so it names every one and cannot drift: this test fails while the
// table differs from what the modules make, and `npm run docs` writes it.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { EventInterest, Subscriber } from '../../src/events/subscriber';
import { modules } from '../../src/module-list';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOC = path.join(root, 'docs/events.md');
const START = '<!-- the subscribers: made from the modules by test/events/subscribers-table.test.ts (npm run docs) -->';
const END = '<!-- end of the subscribers -->';

const code = (text: string) => `\`${text}\``;
const list = (items: readonly string[]) =>
  items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;

function wanted(interest: EventInterest): string {
  const kinds = interest.kinds ? list(interest.kinds.map(code)) : 'every';
  const changed = interest.changed ? ` that changed ${list(interest.changed.map(code))}` : '';
  return `${code(interest.recordType)}: ${kinds} event${changed}`;
}

/** The source file that declares the subscriber: the one holding its name's literal. */
function fileOf(subscriber: Subscriber, sources: ReadonlyMap<string, string>): string {
  const files = [...sources].filter(([, text]) => text.includes(`name: '${subscriber.name}'`)).map(([file]) => file);
  expect(files, subscriber.name).toHaveLength(1);
  return files[0]!;
}

function table(): string {
  const sources = new Map(
    readdirSync(path.join(root, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => [`src/${file}`, readFileSync(path.join(root, 'src', file), 'utf8')] as const),
  );
  const rows = modules
    .flatMap((module) => module.subscribers)
    .map((subscriber) => {
      const where = `${code(subscriber.name)} (${code(fileOf(subscriber, sources))})${subscriber.inStatement ? ", in the write's own statement too" : ''}`;
      return `| ${where} | ${subscriber.on.map(wanted).join('; ')} | ${subscriber.does} |`;
    });
  return ['| subscriber | wants | does |', '|---|---|---|', ...rows].join('\n');
}

/** `record-ticket-timings.subscriber.ts` → `recordTicketTimings` */
const exportNameOf = (file: string) =>
  path.basename(file, '.subscriber.ts').replace(/-([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

describe('the file of each subscriber', () => {
  const sources = new Map(
    readdirSync(path.join(root, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => [`src/${file}`, readFileSync(path.join(root, 'src', file), 'utf8')] as const),
  );
  const subscribers = modules.flatMap((module) => module.subscribers);

  it('is named after its export, `<name>.subscriber.ts`, and exports it under that name', async () => {
    const misplaced: string[] = [];
    for (const subscriber of subscribers) {
      const file = fileOf(subscriber, sources);
      if (!file.endsWith('.subscriber.ts')) misplaced.push(`${subscriber.name}: ${file} is not a .subscriber.ts file`);
      else if ((await import(path.join(root, file)))[exportNameOf(file)] !== subscriber)
        misplaced.push(`${subscriber.name}: ${file} does not export it as ${exportNameOf(file)}`);
    }
    expect(misplaced).toEqual([]);
  });

  it('is a subscriber for each file named as one', () => {
    const declaring = new Set(subscribers.map((subscriber) => fileOf(subscriber, sources)));
    expect([...sources.keys()].filter((file) => file.endsWith('.subscriber.ts') && !declaring.has(file))).toEqual([]);
  });
});

describe("docs/events.md's subscribers", () => {
  it("are the modules' subscribers, each with what it wants, what it does and its file", () => {
    const doc = readFileSync(DOC, 'utf8');
    const start = doc.indexOf(START);
    const end = doc.indexOf(END);
    expect(start, `docs/events.md has the markers ${START} and ${END}`).toBeGreaterThan(-1);
    expect(end).toBeGreaterThan(start);
    const made = `${START}\n${table()}\n`;
    const written = doc.slice(start, end);
    if (process.env.DOCS_RECORD === '1') writeFileSync(DOC, doc.slice(0, start) + made + doc.slice(end));
    else expect(written, 'docs/events.md: run `npm run docs`').toBe(made);
    expect(made.split('\n').filter((line) => line.startsWith('| `')).length).toBe(
      modules.flatMap((module) => module.subscribers).length,
    );
  });
});
