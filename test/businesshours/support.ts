// Helpers shared by the business hours tests: the error body, a snapshot of every row the three
// resources can write, and a refusal check that the snapshot did not move.
import { expect } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api, type ApiRequest } from '../support/api';
import { rows } from '../support/db';
import { expectError as expectErrorBody } from '../support/errors';
export { expectError as expectErrorBody } from '../support/errors';

export interface ErrorEntry {
  code: string;
  source?: string;
  detail: string;
}

const TABLES = ['business_hours', 'business_hours_schedules', 'business_hours_holidays', 'triggers'] as const;

/** Every row the business hours endpoints could touch, in the given installations. */
export async function snapshot(installations: number[]): Promise<Record<string, unknown[]>> {
  const result: Record<string, unknown[]> = {};
  for (const table of TABLES) {
    result[table] = await rows(
      `SELECT to_jsonb(t) AS row FROM ${table} t WHERE installation_id = ANY($1) ORDER BY id`,
      [installations],
    );
  }
  return result;
}

/** UTC's id in the time-zone catalogue: the first row of drizzle/0008_events_timezones.sql, fixed for good. */
export const UTC = 1;

/** The catalogue's id of a zone (`GET /v2/timezones.json`), or undefined when the zone is not listed. */
export async function catalogueId(name: string): Promise<number | undefined> {
  const [row] = await rows<{ id: number }>('SELECT id FROM timezones WHERE name = $1', [name]);
  return row?.id;
}

/** The catalogue's id of a zone that must be listed. */
export async function zoneId(name: string): Promise<number> {
  const id = await catalogueId(name);
  if (id === undefined) throw new Error(`${name} is not in the time-zone catalogue`);
  return id;
}

export { expectPagination } from '../support/pagination';

/** A refusal checker for a file's installations: status, the error naming the culprit, and no row changed. */
export function refusals(sites: () => SeededInstallation[], defaultKey: () => string) {
  return async function rejects(
    path: string,
    request: ApiRequest,
    status: number,
    source?: string | RegExp,
  ): Promise<ErrorEntry | undefined> {
    const installations = sites().map((site) => site.id);
    const before = await snapshot(installations);
    const response = await api(path, { key: defaultKey(), ...request });
    const entry = expectErrorBody(response, status, source);
    expect(await snapshot(installations)).toEqual(before);
    return entry;
  };
}

/** Bodies that are not a JSON object, and the source each 400 names. */
export const NOT_AN_OBJECT = (wrapper: string): [string, string, string][] => [
  ['malformed JSON', `{"${wrapper}": {"name": "Broken",}`, 'body'],
  ['truncated JSON', `{"${wrapper}": {"name": "Broken"`, 'body'],
  ['an empty body', '', 'body'],
  ['a JSON array', '[{"name": "Listed"}]', 'body'],
  ['a JSON number', '42', 'body'],
  ['JSON null', 'null', 'body'],
  ['a wrapper holding an array', `{"${wrapper}": [{"name": "Listed"}]}`, wrapper],
  ['a wrapper holding null', `{"${wrapper}": null}`, wrapper],
];

/** Each name is accepted by `filter` (an equality the type accepts) and `orderBy`. */
export async function expectListAccepts(path: string, key: string, names: Record<string, unknown>): Promise<void> {
  for (const [name, value] of Object.entries(names)) {
    const filtered = await api(path, { key, query: { filter: { [name]: value } as object } });
    expect(filtered.status, `filter ${name}: ${filtered.text}`).toBe(200);
    const ordered = await api(path, { key, query: { orderBy: name, orderMode: 'desc' } });
    expect(ordered.status, `orderBy ${name}: ${ordered.text}`).toBe(200);
  }
}

/** Each name is refused by `filter` and `orderBy`, with a 400 naming it. */
export async function expectListRefuses(path: string, key: string, names: string[]): Promise<void> {
  for (const name of names) {
    const filtered = await api(path, { key, query: { filter: { [name]: 'x' } } });
    expectErrorBody(filtered, 400, `filter.${name}`);
    const ordered = await api(path, { key, query: { orderBy: name } });
    const entry = expectErrorBody(ordered, 400, 'orderBy');
    expect(entry!.detail).toContain(name);
  }
}

/** Each include is accepted; each refused one answers a 400 naming `includes`. */
export async function expectIncludes(path: string, key: string, allowed: string[], refused: string[]): Promise<void> {
  for (const name of [...allowed, 'all', allowed.join(',')]) {
    const response = await api(path, { key, query: { includes: name } });
    expect(response.status, `includes=${name}: ${response.text}`).toBe(200);
  }
  for (const name of refused) {
    const entry = expectErrorBody(await api(path, { key, query: { includes: name } }), 400, 'includes');
    expect(entry!.detail).toContain(name);
  }
}
