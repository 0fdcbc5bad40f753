// Bad input to inboxes: each request gets the right 4xx naming the culprit, and the database
// (inboxes, members, ticket type links and the events) is left exactly as it was.
import { beforeAll, describe, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { refusals } from '../support/refusals';

let site: SeededInstallation;
let other: SeededInstallation;
const ids = { mine: 0, theirs: 0, theirStatus: 0 };

async function snapshot() {
  const installations = [site.id, other.id];
  return {
    inboxes: await rows('SELECT to_jsonb(t) AS row FROM inboxes t WHERE installation_id = ANY($1) ORDER BY id', [
      installations,
    ]),
    members: await rows(
      'SELECT inbox_id, user_id, access FROM inbox_users WHERE installation_id = ANY($1) ORDER BY 1, 2',
      [installations],
    ),
    types: await rows(
      'SELECT ticket_type_id, inbox_id FROM ticket_type_inboxes WHERE installation_id = ANY($1) ORDER BY 1, 2',
      [installations],
    ),
    events: await rows('SELECT count(*)::int AS n FROM events WHERE installation_id = ANY($1)', [installations]),
  };
}

const refused = refusals(snapshot, () => site.users.owner.apiKey);
const list = '/v2/inboxes.json';
const one = (id: number) => `/v2/inboxes/${id}.json`;

beforeAll(async () => {
  site = await newInstallation('inboxes-bad');
  other = await newInstallation('inboxes-bad-other');
  ids.mine = (await api(list, { method: 'POST', key: site.users.owner.apiKey, body: { name: 'Mine' } })).body.inbox.id;
  ids.theirs = (
    await api(list, { method: 'POST', key: other.users.owner.apiKey, body: { name: 'Theirs' } })
  ).body.inbox.id;
  ids.theirStatus = (
    await api('/v2/ticketstatuses.json', { method: 'POST', key: other.users.owner.apiKey, body: { name: 'Theirs' } })
  ).body.ticketstatus.id;
});

describe('/v2/inboxes.json', () => {
  it('refuses malformed, non-object and deeply nested JSON', async () => {
    await refused(list, { method: 'POST', body: '{"name": ' }, 400);
    await refused(list, { method: 'POST', body: '"inbox"' }, 400);
    await refused(
      one(ids.mine),
      { method: 'PATCH', body: `{"inbox": {"users": [${'['.repeat(3_000)}${']'.repeat(3_000)}]}}` },
      400,
    );
  });

  it('refuses wrong types and out-of-range numbers (unknown properties beside them or not) and a missing name, naming each', async () => {
    await refused(
      list,
      { method: 'POST', body: { inbox: { name: 'X', spamThreshold: 101 } } },
      400,
      'inbox.spamThreshold',
    );
    await refused(list, { method: 'POST', body: { inbox: { name: 'X', smtpPort: 70_000 } } }, 400, 'inbox.smtpPort');
    await refused(
      list,
      { method: 'POST', body: { inbox: { name: 'X', smtpServer: 'not a host!' } } },
      400,
      'inbox.smtpServer',
    );
    await refused(list, { method: 'POST', body: { inbox: { name: 'X', localPart: 'a@b' } } }, 400, 'inbox.localPart');
    await refused(
      list,
      { method: 'POST', body: { inbox: { name: 'X', languageCode: 'English' } } },
      400,
      'inbox.languageCode',
    );
    await refused(
      list,
      { method: 'POST', body: { inbox: { name: 'X', displayOrder: '1' } } },
      400,
      'inbox.displayOrder',
    );
    await refused(
      list,
      { method: 'POST', body: { inbox: { name: 'X', smtpPassword: '' } } },
      400,
      'inbox.smtpPassword',
    );
    // an unknown property (ignored alone) beside a wrong value: the 400 names the wrong one
    await refused(
      list,
      { method: 'POST', body: { inbox: { name: 'X', colour: 'red', displayOrder: 'first' } } },
      400,
      'inbox.displayOrder',
    );
    await refused(list, { method: 'POST', body: { inbox: {} } }, 400, 'inbox.name');
    await refused(
      list,
      { method: 'POST', body: { inbox: { name: 'X', users: [{ id: site.users.agent.id, meta: { access: 'god' } }] } } },
      400,
      /^inbox\.users\[0\]\.meta/,
    );
    await refused(
      one(ids.mine),
      { method: 'PATCH', body: { smtpServer: null, smtpPort: 25 } },
      400,
      'inbox.smtpServer',
    );
    await refused(list, { method: 'POST', body: { name: 'Port only', smtpPort: 587 } }, 400, 'inbox.smtpServer');
  });

  it("refuses another installation's teammate, status and ticket type, and removing a member that is none (400)", async () => {
    await refused(
      one(ids.mine),
      { method: 'PATCH', body: { users: [{ id: other.users.agent.id }] } },
      400,
      'inbox.users[0].id',
    );
    await refused(
      one(ids.mine),
      { method: 'PATCH', body: { ticketstatus: { id: ids.theirStatus } } },
      400,
      'inbox.ticketstatus',
    );
    await refused(
      one(ids.mine),
      { method: 'PATCH', body: { users: [{ id: site.users.collaborator.id, delete: true }] } },
      400,
      'inbox.users[0].id',
    );
    await refused(
      list,
      { method: 'POST', body: { name: 'X', tickettypes: [{ id: 2_000_000_000 }] } },
      400,
      'inbox.tickettypes[0].id',
    );
  });

  it('refuses unknown filter, orderBy, includes and fields names, and a page too large; has no bulk operations', async () => {
    await refused(list, { query: { filter: { smtpPassword: 'x' } } }, 400, 'filter.smtpPassword');
    await refused(list, { query: { filter: { 'users.id': 'me' } } }, 400, 'filter.users.id');
    await refused(list, { query: { orderBy: 'users.id' } }, 400, 'orderBy');
    await refused(list, { query: { includes: 'tickets' } }, 400, 'includes');
    await refused(list, { query: { fields: 'smtpPassword' } }, 400, 'fields');
    await refused(list, { query: { pageSize: 1_000 } }, 400, 'pageSize');
    await refused('/v2/inboxes/delete.json', { method: 'DELETE', query: { filter: { name: 'Mine' } } }, 400, 'id');
  });

  it("answers another installation's inbox, and one that never was, as 404; agents and collaborators may not write (403)", async () => {
    for (const id of [ids.theirs, 2_000_000_000]) {
      await refused(one(id), {}, 404, 'id');
      await refused(one(id), { method: 'PATCH', body: { name: 'X' } }, 404, 'id');
      await refused(one(id), { method: 'DELETE' }, 404, 'id');
    }
    await refused(list, { method: 'POST', body: { name: 'X' }, key: site.users.agent.apiKey }, 403);
    await refused(one(ids.mine), { method: 'DELETE', key: site.users.collaborator.apiKey }, 403);
    await refused(list, { key: null }, 401);
  });
});
