// An answer as the document shows it (lists cut to their first records), and the properties it
// has, which the walk compares with the recorded example's.

const SHOWN = 2;

/** The answer with every list cut to its first SHOWN records. */
export function trimmedAnswer(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, SHOWN).map(trimmedAnswer);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, trimmedAnswer(item)]));
}

/** The answer's property names two levels deep (a list's by its first record): `ticket`, `ticket.subject`, `tickets[].id`. */
export function answerShape(value: unknown): string[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  const names: string[] = [];
  for (const [name, item] of Object.entries(value)) {
    names.push(name);
    const inner = Array.isArray(item) ? item[0] : item;
    const prefix = Array.isArray(item) ? `${name}[]` : name;
    if (inner && typeof inner === 'object' && !Array.isArray(inner))
      for (const sub of Object.keys(inner)) names.push(`${prefix}.${sub}`);
  }
  return names.sort();
}

/**
 * Whether an answer has the properties its recorded example has: the same names, a list's
 * records' names compared where both lists have records (what a list holds may differ from run
 * to run: deliveries the queue has made so far).
 */
export function sameShape(recorded: unknown, live: unknown): boolean {
  const before = answerShape(recorded);
  const now = answerShape(live);
  const lists = (names: string[]) =>
    new Set(names.filter((name) => name.includes('[].')).map((name) => name.split('[].')[0]));
  const both = new Set([...lists(before)].filter((list) => lists(now).has(list)));
  const compared = (names: string[]) =>
    names.filter((name) => !name.includes('[].') || both.has(name.split('[].')[0]!));
  return JSON.stringify(compared(before)) === JSON.stringify(compared(now));
}
