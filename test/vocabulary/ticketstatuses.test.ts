// Ticket statuses: the platform's six are shared and fixed; a team's own are created, changed
// and deleted, and a status in use is deleted only by naming the status its users move to.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { eventsOf, eventsSince, lastEventId, summary } from '../support/events';

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;

async function createStatus(body: Record<string, unknown>, key = admin) {
  const response = await api('/v2/ticketstatuses.json', { method: 'POST', key, body: { ticketstatus: body } });
  expect(response.status, response.text).toBe(201);
  return response.body.ticketstatus;
}

beforeAll(async () => {
  site = await newInstallation('statuses');
  other = await newInstallation('statuses-other');
  admin = site.users.admin.apiKey;
});

describe('a custom status', () => {
  it('is created with an id from 100, isCustom true and code active unless sent, with its event', async () => {
    const mark = await lastEventId(site.id);
    const status = await createStatus({ name: 'Escalated', color: '#AA00FF', icon: 'fire', displayOrder: 7 });
    expect(status).toMatchObject({
      type: 'ticketstatuses',
      name: 'Escalated',
      code: 'active',
      color: '#aa00ff',
      icon: 'fire',
      displayOrder: 7,
      isCustom: true,
    });
    expect(status.id).toBeGreaterThanOrEqual(100);
    expect(summary(await eventsSince(site.id, mark))).toEqual(['ticketstatuses:created']);
    const waiting = await createStatus({ name: 'Waiting on vendor', code: 'waiting' });
    expect(waiting).toMatchObject({ code: 'waiting', color: '#9e9e9e', isCustom: true });
  });

  it('is changed with PATCH or PUT; isCustom sent back is ignored', async () => {
    const status = await createStatus({ name: 'Triage' });
    const patched = await api(`/v2/ticketstatuses/${status.id}.json`, {
      method: 'PATCH',
      key: admin,
      body: { ticketstatus: { name: 'Triaged', isCustom: false } },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.ticketstatus).toMatchObject({ name: 'Triaged', isCustom: true });
    const put = await api(`/v2/ticketstatuses/${status.id}.json`, {
      method: 'PUT',
      key: admin,
      body: { code: 'onhold' },
    });
    expect(put.body.ticketstatus).toMatchObject({ name: 'Triaged', code: 'onhold' });
    expect(summary(await eventsOf(site.id, 'ticketstatuses', status.id))).toEqual([
      'ticketstatuses:created',
      'ticketstatuses:updated',
      'ticketstatuses:updated',
    ]);
  });

  it("has a name unique ignoring case, among its own and the platform's (409 naming it)", async () => {
    await createStatus({ name: 'Pending review' });
    expectError(
      await api('/v2/ticketstatuses.json', { method: 'POST', key: admin, body: { name: 'PENDING REVIEW' } }),
      409,
      'ticketstatus.name',
    );
    expectError(
      await api('/v2/ticketstatuses.json', { method: 'POST', key: admin, body: { name: 'solved' } }),
      409,
      'ticketstatus.name',
      /ticketstatus 5/,
    );
    // another installation may use the name
    await createStatus({ name: 'Pending review' }, other.users.owner.apiKey);
  });

  it('is written by owners and admins only; agents and collaborators read', async () => {
    expectError(
      await api('/v2/ticketstatuses.json', { method: 'POST', key: site.users.agent.apiKey, body: { name: 'Nope' } }),
      403,
    );
    expectError(
      await api('/v2/ticketstatuses.json', {
        method: 'POST',
        key: site.users.collaborator.apiKey,
        body: { name: 'Nope' },
      }),
      403,
    );
    expect((await api('/v2/ticketstatuses/1.json', { key: site.users.collaborator.apiKey })).status).toBe(200);
    expect(await rows("SELECT id FROM ticket_statuses WHERE name = 'Nope'")).toEqual([]);
  });

  it('of another installation is a 404 to read, change and delete', async () => {
    const theirs = await createStatus({ name: 'Theirs only' }, other.users.owner.apiKey);
    expectError(await api(`/v2/ticketstatuses/${theirs.id}.json`, { key: admin }), 404, 'id');
    expectError(
      await api(`/v2/ticketstatuses/${theirs.id}.json`, { method: 'PATCH', key: admin, body: { name: 'Mine now' } }),
      404,
      'id',
    );
    expectError(await api(`/v2/ticketstatuses/${theirs.id}.json`, { method: 'DELETE', key: admin }), 404, 'id');
    const list = await api('/v2/ticketstatuses.json', { key: admin, query: { filter: { name: 'Theirs only' } } });
    expect(list.body.ticketstatuses).toEqual([]);
    expect(await rows('SELECT name, state FROM ticket_statuses WHERE id = $1', [theirs.id])).toEqual([
      { name: 'Theirs only', state: 'active' },
    ]);
  });
});

describe("the platform's statuses", () => {
  it('cannot be changed or deleted (409), and stay as they were', async () => {
    expectError(
      await api('/v2/ticketstatuses/5.json', { method: 'PATCH', key: admin, body: { name: 'Done' } }),
      409,
      'id',
      /platform's statuses/,
    );
    expectError(
      await api('/v2/ticketstatuses/5.json', { method: 'DELETE', key: admin }),
      409,
      'id',
      /cannot be deleted/,
    );
    expect(await rows('SELECT name, state, installation_id FROM ticket_statuses WHERE id = 5')).toEqual([
      { name: 'Solved', state: 'active', installation_id: null },
    ]);
  });

  it('are not reached by a status id that does not exist', async () => {
    expectError(await api('/v2/ticketstatuses/2.json', { key: admin }), 404, 'id');
    expectError(await api('/v2/ticketstatuses/2.json', { method: 'DELETE', key: admin }), 404, 'id');
  });
});

describe('deleting a status in use', () => {
  it('is a 409 saying what uses it, and changes nothing', async () => {
    const status = await createStatus({ name: 'Inbox default' });
    await rows("UPDATE inboxes SET ticket_status_id = $1 WHERE installation_id = $2 AND name = 'Support'", [
      status.id,
      site.id,
    ]);
    expectError(
      await api(`/v2/ticketstatuses/${status.id}.json`, { method: 'DELETE', key: admin }),
      409,
      'replaceWith',
      /in use \(1 inboxes\)/,
    );
    expect(await rows('SELECT state FROM ticket_statuses WHERE id = $1', [status.id])).toEqual([{ state: 'active' }]);
  });

  it('with replaceWith moves its users to the replacement, each with an event, then deletes it', async () => {
    const status = await createStatus({ name: 'Moving away' });
    const [inbox] = await rows<{ id: number }>(
      "UPDATE inboxes SET ticket_status_id = $1 WHERE installation_id = $2 AND name = 'Support' RETURNING id",
      [status.id, site.id],
    );
    const mark = await lastEventId(site.id);
    const response = await api(`/v2/ticketstatuses/${status.id}.json`, {
      method: 'DELETE',
      key: admin,
      query: { replaceWith: 3 },
    });
    expect(response.status, response.text).toBe(204);
    expect(await rows('SELECT ticket_status_id FROM inboxes WHERE id = $1', [inbox!.id])).toEqual([
      { ticket_status_id: 3 },
    ]);
    expect(await rows('SELECT state FROM ticket_statuses WHERE id = $1', [status.id])).toEqual([{ state: 'deleted' }]);
    const events = await eventsSince(site.id, mark);
    expect(summary(events)).toEqual(['inboxes:updated', 'ticketstatuses:deleted']);
    expect(events[0]!.data).toEqual({ ticketstatus: { before: status.id, after: 3 } });
    expectError(await api(`/v2/ticketstatuses/${status.id}.json`, { key: admin }), 404);
  });

  it("refuses a replacement that is itself, unknown, deleted or another installation's (400), changing nothing", async () => {
    const status = await createStatus({ name: 'Replace me' });
    const gone = await createStatus({ name: 'Gone already' });
    expect((await api(`/v2/ticketstatuses/${gone.id}.json`, { method: 'DELETE', key: admin })).status).toBe(204);
    const theirs = await createStatus({ name: 'Foreign one' }, other.users.owner.apiKey);
    await rows("UPDATE inboxes SET ticket_status_id = $1 WHERE installation_id = $2 AND name = 'Support'", [
      status.id,
      site.id,
    ]);
    for (const replaceWith of [status.id, 99_999, gone.id, theirs.id]) {
      expectError(
        await api(`/v2/ticketstatuses/${status.id}.json`, { method: 'DELETE', key: admin, query: { replaceWith } }),
        400,
        'replaceWith',
      );
    }
    for (const replaceWith of ['abc', '0', '-1', '1.5']) {
      expectError(
        await api(`/v2/ticketstatuses/${status.id}.json`, { method: 'DELETE', key: admin, query: { replaceWith } }),
        400,
        'replaceWith',
      );
    }
    expect(await rows('SELECT state FROM ticket_statuses WHERE id = $1', [status.id])).toEqual([{ state: 'active' }]);
    expect(
      await rows("SELECT ticket_status_id FROM inboxes WHERE installation_id = $1 AND name = 'Support'", [site.id]),
    ).toEqual([{ ticket_status_id: status.id }]);
  });

  it('not in use needs no replacement', async () => {
    const status = await createStatus({ name: 'Unused' });
    expect((await api(`/v2/ticketstatuses/${status.id}.json`, { method: 'DELETE', key: admin })).status).toBe(204);
  });
});
