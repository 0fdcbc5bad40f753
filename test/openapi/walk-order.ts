// The order the walk sends the reference's operations in, as a reader would try them: the creates
// (each after the records it refers to), the reads, the updates, the other operations, the bulk
// updates, then the deletes and bulk deletes (each before the records it refers to).
import { referencesIn, typeNamedIn } from './walk-references';

/** Whether an operation makes a record: a POST named create. */
export const isCreate = (operation: WalkOperation) => phaseOf(operation) === 0;

export interface WalkOperation {
  path: string;
  method: string;
  operation: any;
  /** `POST /v2/tickets.json (createTicket)` */
  label: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** The type of the records under a path: its collection's last segment (`/v2/tickets/{id}/messages.json`: `messages`). */
export function typeUnder(route: string): string {
  const open = route.lastIndexOf('/{');
  const collection = route.endsWith('}.json') ? route.slice(0, open) : route.replace(/\.json$/, '');
  return collection.split('/').at(-1)!;
}

function phaseOf({ path, method, operation }: WalkOperation): number {
  const one = path.endsWith('}.json');
  if (method === 'post' && String(operation.operationId).startsWith('create')) return 0;
  if (method === 'get') return 1;
  if ((method === 'patch' || method === 'put') && one) return 2;
  if (method === 'patch' || method === 'put') return 4;
  if (method === 'delete') return one ? 5 : 6;
  return 3;
}

/** The types a create's example refers to, in its path and its body. */
function needs({ path, operation }: WalkOperation, doc: any): string[] {
  const inPath = [...path.matchAll(/\/([^/{]+)\/\{[^}]+\}/g)].map((match) => match[1]!);
  const json = operation.requestBody?.content?.['application/json'];
  return [
    ...inPath,
    ...(json?.example === undefined ? [] : referencesIn(json.example, json.schema, doc, typeNamedIn(doc))),
  ];
}

/** Creates ordered so that each comes after the creates of the types it needs. */
function createOrder(creates: WalkOperation[], doc: any): WalkOperation[] {
  const makes = new Set(creates.map((create) => typeUnder(create.path)));
  const ordered: WalkOperation[] = [];
  const made = new Set<string>();
  let left = [...creates];
  while (left.length) {
    const ready = left.filter((create) =>
      needs(create, doc).every((type) => made.has(type) || !makes.has(type) || type === typeUnder(create.path)),
    );
    const next = ready.length ? ready : [left[0]!];
    for (const create of next) made.add(typeUnder(create.path));
    ordered.push(...next);
    left = left.filter((create) => !next.includes(create));
  }
  return ordered;
}

/** Every operation of the document, in the walk's order. */
export function walkOrder(doc: any): WalkOperation[] {
  const all: WalkOperation[] = Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
    METHODS.filter((method) => item[method]).map((method) => ({
      path,
      method,
      operation: item[method],
      label: `${method.toUpperCase()} ${path} (${item[method].operationId})`,
    })),
  );
  const creates = createOrder(
    all.filter((operation) => phaseOf(operation) === 0),
    doc,
  );
  const rank = new Map(creates.map((create, index) => [typeUnder(create.path), index]));
  const rankOf = (operation: WalkOperation) => rank.get(typeUnder(operation.path)) ?? rank.size;
  const rest = all
    .filter((operation) => phaseOf(operation) !== 0)
    .sort((a, b) => {
      const phase = phaseOf(a) - phaseOf(b);
      if (phase) return phase;
      // deletes go before the records they refer to go
      return phaseOf(a) >= 5 ? rankOf(b) - rankOf(a) : rankOf(a) - rankOf(b);
    });
  return [...creates, ...rest];
}
