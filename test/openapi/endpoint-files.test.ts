// Every operation is found from its path: a hand-written route lives in the file named after its
// operationId (`createTicketMessage` in `create-ticket-message.route.ts`, exported as
// `createTicketMessageRoute`), and a generic one in the `.resource.ts` file that declares its
// resource. docs/endpoints.md names that file for every row of the spec's table and for every
// other operation; this test fails while the document differs from what the modules make, and
// `npm run docs` writes it.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { resourceRoutes, type ResourceDeclaration } from '../../src/engine';
import type { ApiRoute } from '../../src/http/route';
import { modules } from '../../src/module-list';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOC = path.join(root, 'docs/endpoints.md');
const SPEC_TABLE_HEADER = '| method | path | state | tests | served by |';
const START = '<!-- every operation: made from the modules by test/openapi/endpoint-files.test.ts (npm run docs) -->';
const END = '<!-- end of the operations -->';

const sources = readdirSync(path.join(root, 'src'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => `src/${file}`);

/** `createTicketMessage` → `create-ticket-message`, `createOAuthApp` → `create-oauth-app` */
function fileNameOf(operationId: string): string {
  return operationId
    .replace('OAuth', 'Oauth')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

const routes: ApiRoute[] = modules.flatMap((module) => module.routes);
const operationIdOf = (route: ApiRoute) => route.declaration.operationId;
/** the document's path with its parameters unnamed, so `:id`, `{id}` and `{jobId}` read alike */
const pathKey = (method: string, routePath: string) =>
  `${method.toUpperCase()} ${routePath.replace(/:\w+|\{\w+\}/g, '{}')}`;

/** each operation's file: the generic ones' from their declarations, then the hand-written ones' by name */
const fileOfOperation = new Map<string, string>();

beforeAll(async () => {
  for (const file of sources.filter((name) => name.endsWith('.resource.ts'))) {
    const exported = Object.values(await import(path.join(root, file))) as unknown[];
    for (const value of exported) {
      if (!isResourceDeclaration(value)) continue;
      for (const route of resourceRoutes(value)) fileOfOperation.set(operationIdOf(route), file);
    }
  }
});

function isResourceDeclaration(value: unknown): value is ResourceDeclaration {
  return typeof value === 'object' && value !== null && 'type' in value && 'title' in value && 'access' in value;
}

describe('the file of each operation', () => {
  it("is the hand-written route's own file, named and exported after its operationId", async () => {
    const misplaced: string[] = [];
    for (const route of routes) {
      const id = operationIdOf(route);
      if (fileOfOperation.has(id)) continue;
      const wanted = `${fileNameOf(id)}.route.ts`;
      const files = sources.filter((file) => path.basename(file) === wanted);
      if (files.length !== 1) {
        misplaced.push(`${id}: ${files.length} files named ${wanted}`);
        continue;
      }
      const exported = (await import(path.join(root, files[0]!))) as Record<string, unknown>;
      if (exported[`${id}Route`] !== route) misplaced.push(`${id}: ${files[0]} does not export it as ${id}Route`);
      else fileOfOperation.set(id, files[0]!);
    }
    expect(misplaced).toEqual([]);
  });

  it('is a route file for each file named as one', () => {
    const served = new Set(fileOfOperation.values());
    const unused = sources.filter((file) => file.endsWith('.route.ts') && !served.has(file));
    expect(unused, 'a .route.ts file serves a registered operation').toEqual([]);
  });
});

function specTable(doc: string): string {
  const lines = doc.split('\n');
  const header = lines.findIndex((line) => line.startsWith('| method | path | state | tests |'));
  expect(header, 'docs/endpoints.md has the spec table').toBeGreaterThan(-1);
  const byPath = new Map(routes.map((route) => [pathKey(route.declaration.method, route.declaration.path), route]));
  const rows: string[] = [SPEC_TABLE_HEADER, '|---|---|---|---|---|'];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('| ')) break;
    const [method, specPath, state, tests] = line
      .split('|')
      .slice(1, 5)
      .map((cell) => cell.trim());
    const route = byPath.get(pathKey(method!, specPath!.replaceAll('`', '')));
    const file = route ? `\`${fileOfOperation.get(operationIdOf(route))}\`` : 'none';
    rows.push(`| ${method} | ${specPath} | ${state} | ${tests} | ${file} |`);
  }
  return rows.join('\n');
}

function operationsTable(): string {
  const rows = routes
    .map((route) => {
      const { method, path: routePath } = route.declaration;
      const id = operationIdOf(route);
      return `| ${method.toUpperCase()} | \`${routePath}\` | \`${id}\` | \`${fileOfOperation.get(id)}\` |`;
    })
    .sort((a, b) => a.split(' | ')[1]!.localeCompare(b.split(' | ')[1]!) || a.localeCompare(b));
  return ['| method | path | operation | served by |', '|---|---|---|---|', ...rows].join('\n');
}

describe('docs/endpoints.md', () => {
  it('names the file that serves each row of the spec and each operation', () => {
    const doc = readFileSync(DOC, 'utf8');
    const lines = doc.split('\n');
    const header = lines.findIndex((line) => line.startsWith('| method | path | state | tests |'));
    let end = header + 2;
    while (lines[end]?.startsWith('| ')) end++;
    const table = specTable(doc);
    expect(table, 'every row of the spec is served').not.toMatch(/\| none \|$/m);

    const withTable = [...lines.slice(0, header), table, ...lines.slice(end)].join('\n');
    const start = withTable.indexOf(START);
    const stop = withTable.indexOf(END);
    expect(start, `docs/endpoints.md has the markers ${START} and ${END}`).toBeGreaterThan(-1);
    expect(stop).toBeGreaterThan(start);
    const made = withTable.slice(0, start) + `${START}\n${operationsTable()}\n` + withTable.slice(stop);

    if (process.env.DOCS_RECORD === '1') writeFileSync(DOC, made);
    else expect(doc, 'docs/endpoints.md: run `npm run docs`').toBe(made);
    expect(new Set(routes.map(operationIdOf)).size, 'operationIds are unique').toBe(routes.length);
  });
});
