// Bad input to the ticket vocabulary (tags, statuses, priorities, types, sources, spam lists):
// each request gets the right 4xx with the one error body naming the culprit, and the database
// (every row of the six tables, their links and the events) is left exactly as it was.
import { beforeAll, describe, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { refusals } from '../support/refusals';

let site: SeededInstallation;
let other: SeededInstallation;

const TABLES = ['tags', 'ticket_statuses', 'ticket_priorities', 'ticket_types', 'ticket_sources', 'spam_lists'];

async function snapshot() {
  const installations = [site.id, other.id];
  const all: Record<string, unknown> = {};
  for (const table of TABLES) {
    all[table] = await rows(
      `SELECT to_jsonb(t) AS row FROM ${table} t WHERE installation_id = ANY($1) OR installation_id IS NULL ORDER BY id`,
      [installations],
    );
  }
  all.links = await rows(
    'SELECT ticket_type_id, inbox_id FROM ticket_type_inboxes WHERE installation_id = ANY($1) ORDER BY 1, 2',
    [installations],
  );
  all.events = await rows('SELECT count(*)::int AS n FROM events WHERE installation_id = ANY($1)', [installations]);
  return all;
}

const refused = refusals(snapshot, () => site.users.owner.apiKey);

interface Group {
  path: string;
  one: string;
  valid: Record<string, unknown>;
  /** a property and a value of the wrong type */
  wrong: [string, unknown];
  /** a record of the group in each installation */
  mine: number;
  theirs: number;
}

const groups: Group[] = [
  { path: 'tags', one: 'tag', valid: { name: 'ok' }, wrong: ['name', 42], mine: 0, theirs: 0 },
  { path: 'ticketstatuses', one: 'ticketstatus', valid: { name: 'ok' }, wrong: ['code', 'open'], mine: 0, theirs: 0 },
  {
    path: 'ticketpriorities',
    one: 'ticketpriority',
    valid: { name: 'ok' },
    wrong: ['displayOrder', '3'],
    mine: 0,
    theirs: 0,
  },
  { path: 'tickettypes', one: 'tickettype', valid: { name: 'ok' }, wrong: ['default', 'yes'], mine: 0, theirs: 0 },
  { path: 'ticketsources', one: 'ticketSource', valid: { name: 'ok' }, wrong: ['icon', ['a']], mine: 0, theirs: 0 },
  {
    path: 'spamlists',
    one: 'spamlist',
    valid: { term: 'ok.example', type: 'blacklist' },
    wrong: ['type', true],
    mine: 0,
    theirs: 0,
  },
];

beforeAll(async () => {
  site = await newInstallation('vocab-bad');
  other = await newInstallation('vocab-bad-other');
  for (const group of groups) {
    const body = group.path === 'spamlists' ? { term: 'fixture.example', type: 'whitelist' } : { name: 'Fixture' };
    group.mine = (await api(`/v2/${group.path}.json`, { method: 'POST', key: site.users.owner.apiKey, body })).body[
      group.one
    ].id;
    group.theirs = (await api(`/v2/${group.path}.json`, { method: 'POST', key: other.users.owner.apiKey, body })).body[
      group.one
    ].id;
  }
});

describe.each(groups.map((group) => [group.path, group] as const))('/v2/%s.json', (_path, group) => {
  const list = () => `/v2/${group.path}.json`;
  const one = (id: number) => `/v2/${group.path}/${id}.json`;

  it('refuses malformed, non-object and deeply nested JSON', async () => {
    await refused(list(), { method: 'POST', body: '{"name": ' }, 400);
    await refused(list(), { method: 'POST', body: '[1, 2]' }, 400);
    await refused(list(), { method: 'POST', body: 'null' }, 400);
    await refused(list(), { method: 'POST', body: '['.repeat(5_000) + ']'.repeat(5_000) }, 400);
    await refused(
      one(group.mine),
      { method: 'PATCH', body: `{"${group.one}": ${'{"a":'.repeat(2_000)}1${'}'.repeat(2_000)}}` },
      400,
    );
  });

  it('refuses a wrong type (beside an unknown property, which alone would be ignored) and a missing required one, naming each', async () => {
    const [name, value] = group.wrong;
    await refused(
      list(),
      { method: 'POST', body: { [group.one]: { ...group.valid, [name]: value } } },
      400,
      `${group.one}.${name}`,
    );
    await refused(
      one(group.mine),
      { method: 'PUT', body: { [group.one]: { [name]: value } } },
      400,
      `${group.one}.${name}`,
    );
    await refused(
      list(),
      { method: 'POST', body: { ...group.valid, [name]: value, colour: '#ffffff' } },
      400,
      `${group.one}.${name}`,
    );
    await refused(list(), { method: 'POST', body: {} }, 400, new RegExp(`^${group.one}\\.`));
  });

  it('refuses unknown filter, orderBy, includes and fields names, and a page too large', async () => {
    await refused(list(), { query: { filter: { nickname: 'x' } } }, 400, 'filter.nickname');
    await refused(list(), { query: { filter: '{"name": ' } }, 400, 'filter');
    await refused(list(), { query: { orderBy: 'password' } }, 400, 'orderBy');
    await refused(list(), { query: { includes: 'tickets' } }, 400, 'includes');
    await refused(list(), { query: { fields: 'secret' } }, 400, 'fields');
    await refused(list(), { query: { pageSize: 1_000 } }, 400, 'pageSize');
  });

  it("answers another installation's record, and one that never was, as 404", async () => {
    for (const id of [group.theirs, 2_000_000_000]) {
      await refused(one(id), {}, 404, 'id');
      await refused(one(id), { method: 'PATCH', body: group.valid }, 404, 'id');
      await refused(one(id), { method: 'DELETE' }, 404, 'id');
    }
    await refused(one(0), {}, 400, 'id');
  });

  it('refuses the roles that may not write (403) and a missing or wrong key (401)', async () => {
    const writer = group.path === 'tags' ? 'collaborator' : 'agent';
    await refused(list(), { method: 'POST', body: group.valid, key: site.users[writer].apiKey }, 403);
    await refused(one(group.mine), { method: 'DELETE', key: site.users[writer].apiKey }, 403);
    await refused(list(), { method: 'POST', body: group.valid, key: null }, 401);
    await refused(list(), { key: 'hd_not-a-key' }, 401);
  });
});
