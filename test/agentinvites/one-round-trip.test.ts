// A request for a seat, and the owner's accept or decline, are one exchange with the database (one
// HTTP batch): the caller's stored role, the owner to address, the invite locked with its rules and
// the requester's seat are statements of the batch; a refusal answers the same 4xx as ever and
// writes nothing (docs/connection-strategy.md, "Writes in one round trip").
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api, type ApiRequest } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { eventsSince, lastEventId } from '../support/events';
import { withRoundTrips } from '../support/round-trips';
import { ask, newUser, roleOf, snapshot } from './fixtures';

let site: SeededInstallation;
let other: SeededInstallation;

beforeAll(async () => {
  site = await newInstallation('invite-trips');
  other = await newInstallation('invite-trips-other');
});

/** The request's answer and round trips, the caller's credential looked up just before (so the count is the write alone). */
async function tripsOf(path: string, request: ApiRequest & { key: string }) {
  expect((await api('/v2/me.json', { key: request.key })).status).toBe(200);
  return withRoundTrips(path, { method: 'POST', ...request });
}

const events = async (mark: number) =>
  (await eventsSince(site.id, mark)).map((e) => `${e.recordType} ${e.recordId} ${e.kind}`);

/** The request is its error in one exchange, and no row or event is written. */
async function refusedInOneExchange(
  path: string,
  request: ApiRequest & { key: string },
  status: number,
  source: string | undefined,
  detail: string,
) {
  const mark = await lastEventId(site.id);
  const before = await snapshot([site.id, other.id]);
  const { answer, trips } = await tripsOf(path, request);
  expect(answer.status, answer.text).toBe(status);
  expect(answer.body.errors).toEqual([
    { code: { 403: 'forbidden', 404: 'notFound', 409: 'conflict' }[status], ...(source ? { source } : {}), detail },
  ]);
  expect(trips).toBe(1);
  expect(await snapshot([site.id, other.id])).toEqual(before);
  expect(await eventsSince(site.id, mark)).toEqual([]);
}

describe('a request for a seat in one round trip', () => {
  it("asks the installation's owner in one exchange, with its event", async () => {
    const asker = await newUser(site.id);
    const mark = await lastEventId(site.id);
    const { answer, trips } = await tripsOf('/v2/agentinvites.json', {
      key: asker.apiKey,
      body: { agentinvite: { message: 'one trip' } },
    });
    expect(answer.status, answer.text).toBe(201);
    expect(trips).toBe(1);
    expect(answer.body.agentinvite).toMatchObject({
      user: { id: asker.id },
      owner: { id: site.users.owner.id },
      status: 'pending',
      message: 'one trip',
    });
    expect(await events(mark)).toEqual([`agentinvites ${answer.body.agentinvite.id} created`]);
  });

  it('refuses a teammate with a seat, a second pending request, and a helpdesk with no owner, each in one exchange', async () => {
    await refusedInOneExchange(
      '/v2/agentinvites.json',
      { key: site.users.agent.apiKey, body: {} },
      409,
      'agentinvite.user',
      `user ${site.users.agent.id} already has a seat (role agent); only a collaborator asks for one`,
    );
    const asker = await newUser(site.id);
    await ask(asker);
    await refusedInOneExchange(
      '/v2/agentinvites.json',
      { key: asker.apiKey, body: {} },
      409,
      'agentinvite.user',
      'you already have a pending request for a seat',
    );
    const ownerless = await newUser(site.id);
    await rows(`UPDATE users SET role = 'admin' WHERE id = $1`, [site.users.owner.id]);
    try {
      await refusedInOneExchange(
        '/v2/agentinvites.json',
        { key: ownerless.apiKey, body: {} },
        409,
        'agentinvite.owner',
        'this installation has no owner to send the request to',
      );
    } finally {
      await rows(`UPDATE users SET role = 'owner' WHERE id = $1`, [site.users.owner.id]);
    }
  });
});

describe("the owner's decision in one round trip", () => {
  it('accepts in one exchange: the requester an agent, both events written', async () => {
    const asker = await newUser(site.id);
    const invite = await ask(asker);
    const mark = await lastEventId(site.id);
    const { answer, trips } = await tripsOf(`/v2/agentinvites/${invite.id}/accept.json`, {
      key: site.users.owner.apiKey,
      query: { includes: 'users' },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(trips).toBe(1);
    expect(answer.body.agentinvite).toMatchObject({
      id: invite.id,
      status: 'accepted',
      decidedBy: { id: site.users.owner.id, type: 'users' },
    });
    expect(await roleOf(asker.id)).toBe('agent');
    expect(await events(mark)).toEqual([`users ${asker.id} updated`, `agentinvites ${invite.id} accepted`]);
    const [accepted] = await rows<{ data: unknown }>(
      `SELECT data FROM events WHERE record_type = 'agentinvites' AND record_id = $1 AND kind = 'accepted'`,
      [invite.id],
    );
    expect(accepted!.data).toEqual({ user: { id: asker.id, type: 'users' } });
  });

  it('declines in one exchange, the requester keeping their role', async () => {
    const asker = await newUser(site.id);
    const invite = await ask(asker);
    const mark = await lastEventId(site.id);
    const { answer, trips } = await tripsOf(`/v2/agentinvites/${invite.id}/decline.json`, {
      key: site.users.owner.apiKey,
    });
    expect(answer.status, answer.text).toBe(200);
    expect(trips).toBe(1);
    expect(answer.body.agentinvite.status).toBe('declined');
    expect(await roleOf(asker.id)).toBe('collaborator');
    expect(await events(mark)).toEqual([`agentinvites ${invite.id} declined`]);
  });

  it("refuses another helpdesk's invite, another owner's, a decided one and a gone requester, each in one exchange", async () => {
    const key = site.users.owner.apiKey;
    const foreign = await ask(await newUser(other.id));
    await refusedInOneExchange(
      `/v2/agentinvites/${foreign.id}/accept.json`,
      { key },
      404,
      'id',
      `agentinvite ${foreign.id} not found`,
    );

    const asker = await newUser(site.id);
    const invite = await ask(asker);
    // a second owner sees no request addressed to the first: 404 as the interactive write answered
    const second = await newUser(site.id, 'owner');
    await rows(`UPDATE agent_invites SET owner_id = $1 WHERE id = $2`, [second.id, invite.id]);
    await refusedInOneExchange(
      `/v2/agentinvites/${invite.id}/decline.json`,
      { key },
      404,
      'id',
      `agentinvite ${invite.id} not found`,
    );
    await rows(`UPDATE agent_invites SET owner_id = $1 WHERE id = $2`, [site.users.owner.id, invite.id]);
    await rows(`UPDATE users SET state = 'deleted' WHERE id = $1`, [second.id]);

    await rows(`UPDATE users SET state = 'deleted' WHERE id = $1`, [asker.id]);
    await refusedInOneExchange(
      `/v2/agentinvites/${invite.id}/accept.json`,
      { key },
      409,
      'agentinvite.user',
      `user ${asker.id} is no longer a teammate here; decline the request instead`,
    );
    expect((await api(`/v2/agentinvites/${invite.id}/decline.json`, { method: 'POST', key })).status).toBe(200);
    await refusedInOneExchange(
      `/v2/agentinvites/${invite.id}/accept.json`,
      { key },
      409,
      'agentinvite.status',
      `agentinvite ${invite.id} is already declined`,
    );
  });
});
