// POST / DELETE /v2/tickets/{id}/tasks/{taskId}.json: a project-management task linked to a
// ticket through the installation's connection (the stand-in product of test/support/pm-server.ts),
// read back with includes=tasks, with the ticket's history lines; the product's refusals and
// failures as company sync answers them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { DEV_PM_TOKEN_KEY } from '../../scripts/worker-vars';
import { encryptToken, pmTokenContext } from '../../src/lib/crypto';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { drained } from '../support/events';
import { expectError } from '../support/errors';
import { awaitLogLines } from '../support/logs';
import { startPmServer, type PmServer } from '../support/pm-server';

let pm: PmServer;
let site: SeededInstallation;
let owner: string;
let agent: string;
let inbox: number;

const link = (ticket: number, task: number | string, key = agent, prefix = '') =>
  api(`${prefix}/v2/tickets/${ticket}/tasks/${task}.json`, { method: 'POST', key });
const unlink = (ticket: number, task: number | string, key = agent) =>
  api(`/v2/tickets/${ticket}/tasks/${task}.json`, { method: 'DELETE', key });
const linkRows = (ticket: number) =>
  rows<{
    task_id: string;
    name: string;
    url: string | null;
    state: string;
    installation_id: number;
    created_by: number;
  }>(
    'SELECT task_id, name, url, state, installation_id, created_by FROM ticket_tasks WHERE ticket_id = $1 ORDER BY id',
    [ticket],
  );
const historyOf = async (ticket: number) => {
  await drained(site.id);
  return rows<{ event_type: string; changes: Record<string, unknown>; created_by: number }>(
    'SELECT event_type, changes, created_by FROM ticket_activities WHERE ticket_id = $1 AND event_type LIKE $2 ORDER BY id',
    [ticket, 'ticket.task.%'],
  );
};
const taskCalls = () => pm.requests.filter((request) => request.includes('/tasks/'));

async function connect(installation: number, url: string) {
  const ciphertext = await encryptToken(pm.token, DEV_PM_TOKEN_KEY, pmTokenContext(installation));
  await rows('INSERT INTO pm_connections (installation_id, base_url, token_ciphertext) VALUES ($1, $2, $3)', [
    installation,
    url,
    ciphertext,
  ]);
}

async function newTicket(key = agent, inboxId = inbox): Promise<number> {
  const created = await api('/v2/tickets.json', {
    method: 'POST',
    key,
    body: { subject: 'Needs a task', inbox: inboxId, customer: { email: 'tasks@links.test' }, message: 'hello' },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.ticket.id;
}

beforeAll(async () => {
  pm = await startPmServer();
  site = await newInstallation('task-links');
  owner = site.users.owner.apiKey;
  agent = site.users.agent.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: owner })).body.inboxes[0].id;
  await connect(site.id, pm.url);
  pm.tasks.set(456, { id: 456, name: 'Fix the export', url: 'https://pm.example/tasks/456' });
  pm.tasks.set(9_007_199_254_740, { id: 9_007_199_254_740, name: 'A big id' });
});

afterAll(async () => {
  await pm?.close();
});

describe('linking a task', () => {
  it('links it once the product has it: the answer, includes=tasks on the ticket and in lists, one row, a history line', async () => {
    const ticket = await newTicket();
    const linked = await link(ticket, 456);
    expect(linked.status, linked.text).toBe(200);
    expect(pm.requests).toContain('GET /tasks/456');
    expect(pm.authorizations.at(-1)).toBe(`Bearer ${pm.token}`);
    const record = linked.body.included.tasks[0];
    expect(linked.body.ticket.tasks).toEqual([{ id: record.id, type: 'tasks' }]);
    expect(record).toMatchObject({
      type: 'tasks',
      ticket: { id: ticket, type: 'tickets' },
      taskId: 456,
      name: 'Fix the export',
      url: 'https://pm.example/tasks/456',
      state: 'active',
      createdBy: { id: site.users.agent.id, type: 'users' },
    });

    const one = await api(`/v2/tickets/${ticket}.json`, { key: agent, query: { includes: 'tasks' } });
    expect(one.status, one.text).toBe(200);
    expect(one.body.included.tasks).toEqual(linked.body.included.tasks);
    const list = await api('/v2/tickets.json', {
      key: owner,
      query: { includes: 'tasks', filter: { id: { $in: [ticket] } } },
    });
    expect(list.status, list.text).toBe(200);
    expect(list.body.tickets[0].tasks).toEqual([{ id: record.id, type: 'tasks' }]);
    expect(list.body.included.tasks.map((task: { taskId: number }) => task.taskId)).toEqual([456]);

    expect(await linkRows(ticket)).toEqual([
      {
        task_id: '456',
        name: 'Fix the export',
        url: 'https://pm.example/tasks/456',
        state: 'active',
        installation_id: site.id,
        created_by: site.users.agent.id,
      },
    ]);
    const history = await historyOf(ticket);
    expect(history).toEqual([
      {
        event_type: 'ticket.task.added',
        changes: { task: { id: record.id, type: 'tasks', taskId: 456, name: 'Fix the export' } },
        created_by: site.users.agent.id,
      },
    ]);
  });

  it('linking again answers the same, keeps one row, writes no line and asks the product nothing', async () => {
    const ticket = await newTicket();
    const first = await link(ticket, 456);
    const calls = taskCalls().length;
    const again = await link(ticket, 456, owner);
    expect(again.status, again.text).toBe(200);
    expect(again.body.included.tasks).toEqual(first.body.included.tasks);
    expect(taskCalls().length).toBe(calls);
    expect(await linkRows(ticket)).toHaveLength(1);
    expect((await historyOf(ticket)).map((line) => line.event_type)).toEqual(['ticket.task.added']);
  });

  it("takes the platform client's address (/desk/api) and a task id past a 32-bit integer", async () => {
    const ticket = await newTicket();
    const linked = await link(ticket, 9_007_199_254_740, agent, '/desk/api');
    expect(linked.status, linked.text).toBe(200);
    expect(linked.body.included.tasks[0]).toMatchObject({ taskId: 9_007_199_254_740, name: 'A big id', url: null });
  });

  it('a task the product does not have is a 404 naming taskId, and nothing is linked', async () => {
    const ticket = await newTicket();
    expectError(await link(ticket, 404404), 404, 'taskId', /no task 404404/);
    expect(await linkRows(ticket)).toEqual([]);
    for (const bad of ['0', '0456', 'abc', '99999999999999999'])
      expect((await link(ticket, bad)).status).toBeGreaterThanOrEqual(400);
    expectError(await link(ticket, 'abc'), 400, 'taskId');
    expect(await linkRows(ticket)).toEqual([]);
  });

  it('the product failing (500, refusing the token, not JSON) is a 502 and nothing is linked', async () => {
    const ticket = await newTicket();
    for (const failure of ['fail', 'refuse', 'garbage'] as const) {
      pm.failWith(failure);
      const response = await link(ticket, 456);
      pm.failWith(null);
      expectError(response, 502, 'pmconnection');
      expect(response.text).not.toContain(pm.token);
    }
    expect(await linkRows(ticket)).toEqual([]);
  });

  it('a redirect is not followed: 502 saying so, the address it names receives nothing, nothing is linked', async () => {
    const elsewhere = await startPmServer(pm.token);
    elsewhere.tasks.set(456, { id: 456, name: 'Elsewhere' });
    try {
      const ticket = await newTicket();
      pm.redirectTo = elsewhere.url;
      pm.failWith('redirect');
      const response = await link(ticket, 456);
      pm.failWith(null);
      expectError(response, 502, 'pmconnection', /redirect \(307\), which is not followed/);
      expect(elsewhere.requests).toEqual([]);
      expect(elsewhere.authorizations).toEqual([]);
      expect(await linkRows(ticket)).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  it('with no connection set it is a 409 naming pmconnection, and nothing is linked', async () => {
    const bare = await newInstallation('task-links-bare');
    const bareInbox = (await api('/v2/inboxes.json', { key: bare.users.owner.apiKey })).body.inboxes[0].id;
    const ticket = await newTicket(bare.users.owner.apiKey, bareInbox);
    const calls = pm.requests.length;
    expectError(await link(ticket, 456, bare.users.owner.apiKey), 409, 'pmconnection', /PUT \/v2\/pmconnection\.json/);
    expect(pm.requests.length).toBe(calls);
    expect(await linkRows(ticket)).toEqual([]);
  });

  it("another installation's ticket, a ticket the agent cannot see, and a collaborator are refused before the product is asked", async () => {
    const hidden = (
      await api('/v2/inboxes.json', {
        method: 'POST',
        key: owner,
        body: { name: 'Hidden', email: 'hidden@task-links.test' },
      })
    ).body.inbox.id;
    const secret = await newTicket(owner, hidden);
    const stranger = await newInstallation('task-links-stranger');
    await connect(stranger.id, pm.url);
    const calls = pm.requests.length;
    // the stranger's owner, with a connection of their own, aims at this installation's ticket
    expectError(await link(secret, 456, stranger.users.owner.apiKey), 404, 'id');
    expectError(await unlink(secret, 456, stranger.users.owner.apiKey), 404, 'id');
    // the agent does not work the hidden inbox
    expectError(await link(secret, 456, agent), 404, 'id');
    // a collaborator may not update tickets
    expectError(await link(secret, 456, site.users.collaborator.apiKey), 403);
    expect(pm.requests.length).toBe(calls);
    expect(await linkRows(secret)).toEqual([]);
    // linked by the owner, the others still cannot unlink it
    expect((await link(secret, 456, owner)).status).toBe(200);
    expectError(await unlink(secret, 456, stranger.users.owner.apiKey), 404, 'id');
    expectError(await unlink(secret, 456, agent), 404, 'id');
    expect((await linkRows(secret)).map((row) => row.state)).toEqual(['active']);
  });
});

describe('unlinking a task', () => {
  it('unlinks it (204), the ticket reads without it, a history line; a second unlink is a 404 naming taskId; linking again makes a new link', async () => {
    const ticket = await newTicket();
    await drained(site.id);
    const linkId = `link-${Math.random().toString(36).slice(2)}`;
    const linked = await api(`/v2/tickets/${ticket}/tasks/456.json`, {
      method: 'POST',
      key: agent,
      headers: { 'x-request-id': linkId },
    });
    expect(linked.status, linked.text).toBe(200);
    // two exchanges around the product's answer: the ticket and the connection, then the link and the read-back
    expect((await awaitLogLines({ requestId: linkId }))[0]!.dbRoundTrips).toBe(2);
    const calls = taskCalls().length;
    const unlinkId = `unlink-${Math.random().toString(36).slice(2)}`;
    const response = await api(`/v2/tickets/${ticket}/tasks/456.json`, {
      method: 'DELETE',
      key: agent,
      headers: { 'x-request-id': unlinkId },
    });
    expect(response.status, response.text).toBe(204);
    expect((await awaitLogLines({ requestId: unlinkId }))[0]!.dbRoundTrips).toBe(1);
    expect(taskCalls().length).toBe(calls);
    const read = await api(`/v2/tickets/${ticket}.json`, { key: agent, query: { includes: 'tasks' } });
    expect(read.body.ticket.tasks).toEqual([]);
    expect(read.body.included.tasks ?? []).toEqual([]);
    expect((await linkRows(ticket)).map((row) => row.state)).toEqual(['deleted']);
    const record = linked.body.included.tasks[0];
    expect(await historyOf(ticket)).toEqual([
      {
        event_type: 'ticket.task.added',
        changes: { task: { id: record.id, type: 'tasks', taskId: 456, name: 'Fix the export' } },
        created_by: site.users.agent.id,
      },
      {
        event_type: 'ticket.task.removed',
        changes: { task: { id: record.id, type: 'tasks', taskId: 456, name: 'Fix the export' } },
        created_by: site.users.agent.id,
      },
    ]);

    expectError(await unlink(ticket, 456), 404, 'taskId', /not linked/);
    expectError(await unlink(ticket, 777), 404, 'taskId');
    const again = await link(ticket, 456);
    expect(again.status).toBe(200);
    expect((await linkRows(ticket)).map((row) => row.state)).toEqual(['deleted', 'active']);
  });

  it('needs no connection: a link stays removable when the product is gone', async () => {
    const ticket = await newTicket();
    expect((await link(ticket, 456)).status).toBe(200);
    pm.failWith('fail');
    try {
      expect((await unlink(ticket, 456)).status).toBe(204);
    } finally {
      pm.failWith(null);
    }
  });
});
