// The reference's examples work when sent: every list operation's query parameters, each with
// the example the document gives it, answer a documented success to an owner of a fresh
// installation (a record an example names by id made in it first) (issue 34: "Test Request" answered 400 on the 26 lists without a `name`).
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation } from '../support/db';

let doc: any;
let site: SeededInstallation;
/** The records an example names by id, made in the fresh installation: the example's id → the one made here. */
const madeFor: Record<string, (example: string) => string> = {};

beforeAll(async () => {
  doc = (await api('/v2/openapi.json')).body;
  site = await newInstallation('examples');
  const field = await api('/v2/customfields.json', {
    method: 'POST',
    key: site.users.owner.apiKey,
    body: { customfield: { agentLabel: 'Plan', kind: 'text' } },
  });
  expect(field.status, field.text).toBe(201);
  madeFor.customfields = (example) =>
    JSON.stringify(JSON.parse(example).map((criterion: object) => ({ ...criterion, id: field.body.customfield.id })));
});

/** The 2xx statuses an operation documents. */
const successes = (operation: any) =>
  Object.keys(operation.responses)
    .filter((status) => status.startsWith('2'))
    .map(Number);

/** GET operations without path parameters that answer JSON to a teammate: the lists, and reads like `/v2/me.json`. */
function teammateReads(): Array<{ path: string; operation: any }> {
  return Object.entries(doc.paths).flatMap(([path, methods]: [string, any]) => {
    const operation = methods.get;
    if (!operation || path.includes('{') || !path.startsWith('/v2/') || !path.endsWith('.json')) return [];
    if (operation.security?.length === 0) return [];
    return [{ path, operation }];
  });
}

describe('the examples of the reference', () => {
  it("gives every filter an example over the resource's own names", () => {
    const filters = teammateReads().flatMap(({ path, operation }) =>
      (operation.parameters ?? []).filter((p: any) => p.name === 'filter').map((p: any) => ({ path, p })),
    );
    expect(filters.length).toBeGreaterThan(40);
    // the search filters over the ticket list's names
    const namesOf = (path: string, p: any) =>
      (path === '/v2/search/tickets.json' ? filters.find((f) => f.path === '/v2/tickets.json')!.p : p).schema
        .description;
    for (const { path, p } of filters) {
      expect(p.schema.example, path).toBeTypeOf('string');
      const named = Object.keys(JSON.parse(p.schema.example));
      for (const name of named)
        expect(namesOf(path, p), `${path}: ${name}`).toMatch(new RegExp(`[ :,]${name.replace('.', '\\.')}(,|;)`));
    }
  });

  it('answers a documented success to every list sent with every query example the document gives', async () => {
    const failures: string[] = [];
    let sent = 0;
    for (const { path, operation } of teammateReads()) {
      const query: Record<string, string> = {};
      for (const parameter of operation.parameters ?? []) {
        const example = parameter.example ?? parameter.schema?.example;
        if (parameter.in !== 'query' || example === undefined) continue;
        const text = typeof example === 'string' ? example : JSON.stringify(example);
        query[parameter.name] = madeFor[parameter.name]?.(text) ?? text;
      }
      if (Object.keys(query).length === 0) continue;
      const response = await api(path, { key: site.users.owner.apiKey, query });
      sent += 1;
      if (!successes(operation).includes(response.status))
        failures.push(`${path}?${new URLSearchParams(query)}: ${response.status} ${response.text.slice(0, 300)}`);
    }
    expect(sent).toBeGreaterThan(40);
    expect(failures).toEqual([]);
  });
});
