// A teammate's create and update, and an API key's create, are one exchange with the database (one
// HTTP batch): who may add, change roles and the last owner checked by statements of the batch
// over the teammates as stored, a refusal answering the same 4xx as ever and writing nothing
// (docs/connection-strategy.md, "Writes in one round trip").
import { beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { addUser, type SeededInstallation, type SeededUser } from '../../scripts/seed';
import type { UserRole } from '../../src/db/schema';
import { api } from '../support/api';
import { db, newInstallation, rows } from '../support/db';
import { eventsSince, lastEventId, type EventRow } from '../support/events';
import { withRoundTrips } from '../support/round-trips';

let site: SeededInstallation;
let other: SeededInstallation;

beforeAll(async () => {
  site = await newInstallation('users-trips');
  other = await newInstallation('users-trips-other');
});

const summary = (events: EventRow[]) => events.map((e) => `${e.recordType} ${e.recordId} ${e.kind}`);

const newUser = (role: UserRole, installation = site): Promise<SeededUser> =>
  addUser(db() as unknown as pg.ClientBase, installation.id, role);

/** The request's answer and round trips, the caller's credential looked up just before (so the count is the write alone). */
async function tripsOf(key: string, path: string, method: string, body: unknown) {
  expect((await api('/v2/me.json', { key })).status).toBe(200);
  return withRoundTrips(path, { key, method, body });
}

/** The teammates and keys of the installation, as a refusal must leave them. */
const teammates = () =>
  rows(`SELECT to_jsonb(u) AS row FROM users u WHERE installation_id = $1 ORDER BY id`, [site.id]);
const keys = () => rows(`SELECT id, user_id, state FROM credentials WHERE installation_id = $1 ORDER BY id`, [site.id]);

/** Each request is its error in at most one exchange, with no row and no event written. */
async function refused(
  cases: ReadonlyArray<{
    key: string;
    path: string;
    method: string;
    body: unknown;
    status: number;
    source?: string;
    detail: string;
    trips?: number;
  }>,
) {
  const mark = await lastEventId(site.id);
  const [before, keysBefore] = [await teammates(), await keys()];
  for (const { key, path, method, body, status, source, detail, trips = 1 } of cases) {
    const answer = await tripsOf(key, path, method, body);
    expect(answer.answer.status, answer.answer.text).toBe(status);
    expect(answer.answer.body.errors).toEqual([
      {
        code: { 400: 'invalid', 403: 'forbidden', 404: 'notFound', 409: 'conflict' }[status],
        ...(source ? { source } : {}),
        detail,
      },
    ]);
    expect(answer.trips, `${method} ${path} ${JSON.stringify(body)}`).toBe(trips);
  }
  expect(await teammates()).toEqual(before);
  expect(await keys()).toEqual(keysBefore);
  expect(await eventsSince(site.id, mark)).toEqual([]);
}

describe('teammates in one round trip', () => {
  it('adds a teammate, changes a profile and a role, each in one exchange with its event', async () => {
    const mark = await lastEventId(site.id);
    const email = `trip-${Date.now()}@example.test`;
    const made = await tripsOf(site.users.admin.apiKey, '/v2/users.json', 'POST', {
      user: { email, firstName: 'Trip' },
    });
    expect(made.answer.status, made.answer.text).toBe(201);
    expect(made.trips).toBe(1);
    const id = made.answer.body.user.id as number;
    expect(made.answer.body.user).toMatchObject({ email, firstName: 'Trip', role: 'agent' });

    const own = await tripsOf(site.users.agent.apiKey, `/v2/users/${site.users.agent.id}.json`, 'PATCH', {
      user: { lastName: 'Mine', role: 'agent' },
    });
    expect(own.answer.status, own.answer.text).toBe(200);
    expect(own.trips).toBe(1);
    expect(own.answer.body.user.lastName).toBe('Mine');

    const promoted = await tripsOf(site.users.owner.apiKey, `/v2/users/${id}.json`, 'PATCH', {
      user: { role: 'admin' },
    });
    expect(promoted.answer.status, promoted.answer.text).toBe(200);
    expect(promoted.trips).toBe(1);
    expect(promoted.answer.body.user.role).toBe('admin');
    const events = (await eventsSince(site.id, mark)).filter((e) => e.recordType === 'users');
    expect(summary(events)).toEqual([
      `users ${id} created`,
      `users ${site.users.agent.id} updated`,
      `users ${id} updated`,
    ]);
    expect(events[2]!.data).toMatchObject({ role: { before: 'agent', after: 'admin' } });
  });

  it('refuses what the rules refuse, in one exchange (none where the caller alone decides it), writing nothing', async () => {
    const agent = await newUser('agent');
    const admin = await newUser('admin');
    const { owner } = site.users;
    await refused([
      // the caller alone decides these: answered before any exchange
      {
        key: site.users.agent.apiKey,
        path: '/v2/users.json',
        method: 'POST',
        body: { user: { email: `no-${Date.now()}@example.test`, firstName: 'No' } },
        status: 403,
        detail: 'only an owner or admin adds teammates',
        trips: 0,
      },
      {
        key: site.users.admin.apiKey,
        path: '/v2/users.json',
        method: 'POST',
        body: { user: { email: `no2-${Date.now()}@example.test`, firstName: 'No', role: 'owner' } },
        status: 403,
        detail: 'only an owner may make, change or remove an owner or admin',
        trips: 0,
      },
      // the stored teammates decide these
      {
        key: site.users.agent.apiKey,
        path: `/v2/users/${agent.id}.json`,
        method: 'PATCH',
        body: { user: { lastName: 'Theirs' } },
        status: 403,
        detail: "a teammate changes only their own profile; an owner or admin changes others'",
      },
      {
        key: site.users.agent.apiKey,
        path: `/v2/users/${site.users.agent.id}.json`,
        method: 'PATCH',
        body: { user: { role: 'admin' } },
        status: 403,
        detail: 'a teammate cannot change their own role',
      },
      {
        key: site.users.admin.apiKey,
        path: `/v2/users/${admin.id}.json`,
        method: 'PATCH',
        body: { user: { role: 'agent' } },
        status: 403,
        detail: 'only an owner may make, change or remove an owner or admin',
      },
      {
        key: site.users.admin.apiKey,
        path: `/v2/users/${agent.id}.json`,
        method: 'PATCH',
        body: { user: { role: 'admin' } },
        status: 403,
        detail: 'only an owner may make, change or remove an owner or admin',
      },
      {
        key: owner.apiKey,
        path: `/v2/users/${owner.id}.json`,
        method: 'PATCH',
        body: { user: { role: 'admin' } },
        status: 409,
        source: 'id',
        detail: `user ${owner.id} is the installation's last owner and cannot be demoted; make another teammate owner first`,
      },
      {
        key: owner.apiKey,
        path: `/v2/users/${other.users.agent.id}.json`,
        method: 'PATCH',
        body: { user: { lastName: 'Foreign' } },
        status: 404,
        source: 'id',
        detail: `user ${other.users.agent.id} not found`,
      },
      {
        key: owner.apiKey,
        path: `/v2/users/${agent.id}.json`,
        method: 'PATCH',
        body: { user: { email: site.users.admin.email } },
        status: 409,
        source: 'user.email',
        detail: 'a teammate with this email already exists',
      },
    ]);
  });

  it('lets an owner demote another owner while a second one is left, in one exchange', async () => {
    const second = await newUser('owner');
    const demoted = await tripsOf(site.users.owner.apiKey, `/v2/users/${second.id}.json`, 'PATCH', {
      user: { role: 'agent' },
    });
    expect(demoted.answer.status, demoted.answer.text).toBe(200);
    expect(demoted.trips).toBe(1);
    expect(await rows('SELECT role FROM users WHERE id = $1', [second.id])).toEqual([{ role: 'agent' }]);
  });
});

describe("a teammate's deactivation in one round trip", () => {
  it('deactivates an agent in one exchange, with its event', async () => {
    const agent = await newUser('agent');
    const mark = await lastEventId(site.id);
    const gone = await tripsOf(site.users.admin.apiKey, `/v2/users/${agent.id}.json`, 'DELETE', undefined);
    expect(gone.answer.status, gone.answer.text).toBe(204);
    expect(gone.trips).toBe(1);
    expect(await rows('SELECT state FROM users WHERE id = $1', [agent.id])).toEqual([{ state: 'deleted' }]);
    expect(summary(await eventsSince(site.id, mark))).toEqual([`users ${agent.id} deleted`]);
  });

  it('refuses what the rules refuse, in one exchange (none where the caller alone decides it), writing nothing', async () => {
    const admin = await newUser('admin');
    const { owner } = site.users;
    await refused([
      {
        key: site.users.agent.apiKey,
        path: `/v2/users/${admin.id}.json`,
        method: 'DELETE',
        body: undefined,
        status: 403,
        detail: 'only an owner or admin deactivates teammates',
        trips: 0,
      },
      {
        key: site.users.admin.apiKey,
        path: `/v2/users/${admin.id}.json`,
        method: 'DELETE',
        body: undefined,
        status: 403,
        detail: 'only an owner may make, change or remove an owner or admin',
      },
      {
        key: owner.apiKey,
        path: `/v2/users/${owner.id}.json`,
        method: 'DELETE',
        body: undefined,
        status: 409,
        source: 'id',
        detail: `user ${owner.id} is the installation's last owner and cannot be removed; make another teammate owner first`,
      },
      {
        key: owner.apiKey,
        path: `/v2/users/${other.users.agent.id}.json`,
        method: 'DELETE',
        body: undefined,
        status: 404,
        source: 'id',
        detail: `user ${other.users.agent.id} not found`,
      },
    ]);
  });
});

describe('API keys in one round trip', () => {
  it("makes the caller's key, and an admin's key for an agent, in one exchange each, with the secret once", async () => {
    const mark = await lastEventId(site.id);
    const mine = await tripsOf(site.users.agent.apiKey, '/v2/apikeys.json', 'POST', { apikey: { name: 'Trip' } });
    expect(mine.answer.status, mine.answer.text).toBe(201);
    expect(mine.trips).toBe(1);
    expect(mine.answer.body.apikey).toMatchObject({
      name: 'Trip',
      user: { id: site.users.agent.id, type: 'users' },
      secret: expect.any(String),
    });
    const agent = await newUser('agent');
    const theirs = await tripsOf(site.users.admin.apiKey, '/v2/apikeys.json', 'POST', {
      apikey: { name: 'Handed', user: { id: agent.id } },
    });
    expect(theirs.answer.status, theirs.answer.text).toBe(201);
    expect(theirs.trips).toBe(1);
    expect(theirs.answer.body.apikey).toMatchObject({ name: 'Handed', user: { id: agent.id, type: 'users' } });
    // the new key works, as its teammate
    expect((await api('/v2/me.json', { key: theirs.answer.body.apikey.secret })).body.user.id).toBe(agent.id);
    const events = (await eventsSince(site.id, mark)).filter((e) => e.recordType === 'apikeys');
    expect(summary(events)).toEqual([
      `apikeys ${mine.answer.body.apikey.id} created`,
      `apikeys ${theirs.answer.body.apikey.id} created`,
    ]);
    expect(JSON.stringify(events)).not.toContain(theirs.answer.body.apikey.secret);
  });

  it("refuses a key for another installation's teammate, a gone one, or (by an admin) an owner's, in one exchange, writing nothing", async () => {
    const gone = await newUser('agent');
    await rows(`UPDATE users SET state = 'deleted' WHERE id = $1`, [gone.id]);
    const key = site.users.admin.apiKey;
    await refused([
      {
        key,
        path: '/v2/apikeys.json',
        method: 'POST',
        body: { apikey: { user: { id: other.users.agent.id } } },
        status: 400,
        source: 'apikey.user',
        detail: `no teammate ${other.users.agent.id} here`,
      },
      {
        key,
        path: '/v2/apikeys.json',
        method: 'POST',
        body: { apikey: { user: { id: gone.id } } },
        status: 400,
        source: 'apikey.user',
        detail: `no teammate ${gone.id} here`,
      },
      {
        key,
        path: '/v2/apikeys.json',
        method: 'POST',
        body: { apikey: { user: { id: site.users.owner.id } } },
        status: 403,
        detail: 'only an owner may make, change or remove an owner or admin',
      },
      {
        key: site.users.agent.apiKey,
        path: '/v2/apikeys.json',
        method: 'POST',
        body: { apikey: { user: { id: site.users.admin.id } } },
        status: 403,
        detail: 'only an owner or admin makes a key for another teammate',
        trips: 0,
      },
    ]);
  });
});
