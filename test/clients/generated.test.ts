// The committed client types and collection are what the routes make now: regenerated in memory
// from the Worker under test's document and compared byte for byte. A route changed without
// `npm run clients` fails here.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_FILES, REGENERATE, renderClients, renderCollection, type OpenApiDocument } from '../../scripts/clients/render';
import { api } from '../support/api';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let document: OpenApiDocument;
let served: string;
/** what the document makes now (rendered once: a few seconds of CPU) */
let files: Record<string, string>;
beforeAll(async () => {
  const response = await api<OpenApiDocument>('/v2/openapi.json');
  expect(response.status).toBe(200);
  document = response.body;
  served = JSON.stringify(document);
  files = await renderClients(document);
});

/** Where two texts part, line by line, cut short: what the failure shows instead of megabytes. */
function firstDifference(committed: string, current: string): string {
  const a = committed.split('\n');
  const b = current.split('\n');
  const line = a.findIndex((text, index) => text !== b[index]);
  const at = line === -1 ? a.length : line;
  const cut = (text: string | undefined) => (text === undefined ? '(none)' : JSON.stringify(text.slice(0, 160)));
  return `first difference at line ${at + 1}: committed ${cut(a[at])}, now ${cut(b[at])}`;
}

describe('the generated clients', () => {
  it('are current: the committed files are what the document makes now', async () => {
    expect(Object.keys(files).sort()).toEqual(Object.values(CLIENT_FILES).sort());
    for (const [file, current] of Object.entries(files)) {
      const committed = await readFile(path.join(root, file), 'utf8').catch(() => undefined);
      if (committed === undefined) expect.fail(`${file} is missing: run \`${REGENERATE}\` and commit the result`);
      expect(committed === current, `${file} is not what the routes make now: run \`${REGENERATE}\` and commit the result (${firstDifference(committed, current)})`).toBe(true);
    }
  });

  it('come out the same from the same document, whatever ran before', () => {
    // random numbers drawn in between must not show in the collection's placeholders
    for (let i = 0; i < 100; i++) Math.random();
    const collection = files[CLIENT_FILES.collection]!;
    expect(renderCollection(document) === collection).toBe(true);
    // no random ids: the collection's own is always the same
    expect([...collection.matchAll(/"(?:id|_postman_id)": "([0-9a-f-]{36})"/g)].map((match) => match[1])).toEqual(['6f0b8f3e-7d55-4c8e-9a51-4b1f0c2d9e21']);
    const types = files[CLIENT_FILES.types]!;
    expect(types).toMatch(/^\/\/ The Helpdesk API's types, made from GET \/v2\/openapi\.json by `npm run clients`/);
    expect(types).toContain('export interface paths {');
  });

  it('leave the document they are made from as it was', () => {
    expect(JSON.stringify(document) === served).toBe(true);
  });
});
