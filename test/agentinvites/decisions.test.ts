// POST /v2/agentinvites/{id}/accept.json and .../decline.json: the owner the request is
// addressed to decides it once; accepting gives the requester a seat in the same transaction.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation, SeededUser } from '../../scripts/seed';
import { api, type ApiRequest } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { ask, expectError, newUser, roleOf, snapshot } from './fixtures';

let site: SeededInstallation;
let other: SeededInstallation;
let ownerKey: string;

beforeAll(async () => {
  site = await newInstallation('decisions');
  other = await newInstallation('decisions-other');
  ownerKey = site.users.owner.apiKey;
});

const accept = (id: number, request: ApiRequest = {}) =>
  api(`/v2/agentinvites/${id}/accept.json`, { method: 'POST', key: ownerKey, ...request });
const decline = (id: number, request: ApiRequest = {}) =>
  api(`/v2/agentinvites/${id}/decline.json`, { method: 'POST', key: ownerKey, ...request });

async function refused(send: () => ReturnType<typeof api>, status: number, source: string | RegExp, detail?: RegExp) {
  const before = await snapshot([site.id, other.id]);
  expectError(await send(), status, source, detail);
  expect(await snapshot([site.id, other.id])).toEqual(before);
}

describe('accept', () => {
  it('answers 200 with the invite accepted, and the requester becomes an agent', async () => {
    const asker = await newUser(site.id);
    const invite = await ask(asker, 'please');
    const response = await accept(invite.id);
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['agentinvite', 'included']);
    expect(response.body.agentinvite).toMatchObject({
      id: invite.id,
      status: 'accepted',
      decidedBy: { id: site.users.owner.id, type: 'users' },
      message: 'please',
      user: { id: asker.id, type: 'users' },
      updatedBy: { id: site.users.owner.id, type: 'users' },
    });
    expect(Date.now() - Date.parse(response.body.agentinvite.decidedAt)).toBeLessThan(60_000);
    expect(await roleOf(asker.id)).toBe('agent');
    const [row] = await rows('SELECT status, decided_by FROM agent_invites WHERE id = $1', [invite.id]);
    expect(row).toEqual({ status: 'accepted', decided_by: site.users.owner.id });
    // The requester still sees it, now accepted.
    const mine = await api('/v2/agentinvites.json', { key: asker.apiKey });
    expect(mine.body.agentinvites[0]).toMatchObject({ id: invite.id, status: 'accepted' });
  });

  it("refuses a new request from the accepted requester, though their key was read as a collaborator's", async () => {
    const asker = await newUser(site.id);
    const invite = await ask(asker);
    // The credential is remembered as a collaborator's now: the role is checked in the database.
    expect((await api('/v2/agentinvites.json', { key: asker.apiKey })).status).toBe(200);
    await accept(invite.id);
    const again = await api('/v2/agentinvites.json', { method: 'POST', key: asker.apiKey, body: {} });
    expectError(again, 409, 'agentinvite.user', /already has a seat \(role agent\)/);
  });

  it('keeps the role of a requester promoted meanwhile (never a demotion)', async () => {
    const asker = await newUser(site.id);
    const invite = await ask(asker);
    await rows(`UPDATE users SET role = 'admin' WHERE id = $1`, [asker.id]);
    expect((await accept(invite.id)).status).toBe(200);
    expect(await roleOf(asker.id)).toBe('admin');
  });

  it('409 when the requester is no longer a teammate; nothing changes', async () => {
    const asker = await newUser(site.id);
    const invite = await ask(asker);
    await rows(`UPDATE users SET state = 'deleted' WHERE id = $1`, [asker.id]);
    await refused(() => accept(invite.id), 409, 'agentinvite.user', /no longer a teammate/);
  });

  it('answers with the includes asked for, and refuses an unknown one', async () => {
    const asker = await newUser(site.id);
    const invite = await ask(asker);
    await refused(() => accept(invite.id, { query: { includes: 'customers' } }), 400, 'includes');
    const response = await accept(invite.id, { query: { includes: 'users' } });
    expect(response.body.included.users.map((u: { id: number }) => u.id).sort()).toEqual(
      [asker.id, site.users.owner.id].sort(),
    );
  });
});

describe('decline', () => {
  it('answers 200 with the invite declined; the requester keeps no seat and may ask again', async () => {
    const asker = await newUser(site.id);
    const invite = await ask(asker);
    const response = await decline(invite.id);
    expect(response.status, response.text).toBe(200);
    expect(response.body.agentinvite).toMatchObject({
      id: invite.id,
      status: 'declined',
      decidedBy: { id: site.users.owner.id },
    });
    expect(response.body.agentinvite.decidedAt).toMatch(/Z$/);
    expect(await roleOf(asker.id)).toBe('collaborator');
    const again = await ask(asker, 'second try');
    expect(again.status).toBe('pending');
  });
});

describe('deciding refusals', () => {
  let asker: SeededUser;
  let pending = 0;
  beforeAll(async () => {
    asker = await newUser(site.id);
    pending = (await ask(asker)).id;
  });

  it('409 to deciding an invite twice, either way', async () => {
    const a = await newUser(site.id);
    const accepted = (await ask(a)).id;
    await accept(accepted);
    await refused(() => accept(accepted), 409, 'agentinvite.status', /already accepted/);
    await refused(() => decline(accepted), 409, 'agentinvite.status', /already accepted/);
    const d = await newUser(site.id);
    const declined = (await ask(d)).id;
    await decline(declined);
    await refused(() => decline(declined), 409, 'agentinvite.status', /already declined/);
    await refused(() => accept(declined), 409, 'agentinvite.status', /already declined/);
    expect(await roleOf(d.id)).toBe('collaborator');
  });

  it('one of two decisions sent at once wins; the other is a 409', async () => {
    const racer = await newUser(site.id);
    const id = (await ask(racer)).id;
    const answers = await Promise.all([accept(id), decline(id), accept(id)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    const winner = answers.find((a) => a.status === 200)!.body.agentinvite.status;
    expect(await roleOf(racer.id)).toBe(winner === 'accepted' ? 'agent' : 'collaborator');
  });

  it('403 to anyone but an owner: admin, agent, the requester themself', async () => {
    for (const key of [site.users.admin.apiKey, site.users.agent.apiKey, asker.apiKey]) {
      await refused(() => accept(pending, { key }), 403, /.*/);
      await refused(() => decline(pending, { key }), 403, /.*/);
    }
  });

  it("404 to another installation's owner, another owner, and an invite that does not exist", async () => {
    await refused(() => accept(pending, { key: other.users.owner.apiKey }), 404, 'id');
    const secondOwner = await newUser(site.id, 'owner');
    await refused(() => accept(pending, { key: secondOwner.apiKey }), 404, 'id');
    await refused(() => decline(2_000_000_000), 404, 'id');
    const deleted = await newUser(site.id);
    const gone = (await ask(deleted)).id;
    await rows(`UPDATE agent_invites SET state = 'deleted' WHERE id = $1`, [gone]);
    await refused(() => accept(gone), 404, 'id');
  });

  it('400 to an id that is not a positive integer; 401 without a credential', async () => {
    await refused(() => accept(0), 400, 'id');
    await refused(() => api('/v2/agentinvites/abc/decline.json', { method: 'POST', key: ownerKey }), 400, 'id');
    await refused(() => accept(pending, { key: null }), 401, /.*/);
  });
});
