// Replies and notes written as another teammate (`agent`, as the platform's samples send it on
// every reply and note): owners and admins name any active teammate with a seat who sees the
// ticket, an agent only itself; the entry, its events and its history line are that teammate's.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { drained, eventsSince, expectActor, lastEventId, summary } from '../support/events';

let site: SeededInstallation;
let inbox: number;
let customer: number;

beforeAll(async () => {
  site = await newInstallation('threads-as-teammate');
  inbox = (await api('/v2/inboxes.json', { key: site.users.owner.apiKey })).body.inboxes[0].id;
  customer = (
    await api('/v2/customers.json', {
      method: 'POST',
      key: site.users.owner.apiKey,
      body: { email: 'as-teammate@tickets.test' },
    })
  ).body.customer.id;
});

const newTicket = async () =>
  (
    await api('/v2/tickets.json', {
      method: 'POST',
      key: site.users.owner.apiKey,
      body: { subject: 'Written as', inbox, customer, message: 'first' },
    })
  ).body.ticket.id as number;
const post = (id: number, body: unknown, key: string) =>
  api(`/v2/tickets/${id}/messages.json`, { method: 'POST', key, body });
const entries = (id: number) =>
  rows<{ created_by: number; thread_type: string }>(
    'SELECT created_by, thread_type FROM ticket_messages WHERE ticket_id = $1 ORDER BY id',
    [id],
  );
/** A teammate added straight to the database: in no inbox, or deactivated. */
const addTeammate = async (role: string, state = 'active') =>
  (
    await rows<{ id: number }>(
      `INSERT INTO users (installation_id, first_name, email, role, state) VALUES ($1, 'Extra', $2, $3, $4) RETURNING id`,
      [site.id, `${role}-${state}-${Math.random().toString(36).slice(2, 8)}@teammates.test`, role, state],
    )
  )[0]!.id;

describe('a reply or note written as another teammate', () => {
  it("an owner's reply sent as the platform's sample sends it is the named agent's: the entry, its events, its history line", async () => {
    const id = await newTicket();
    const mark = await lastEventId(site.id);
    // byte for byte the platform's published sample for a reply
    const sample = {
      bcc: [],
      cc: ['name@domain.com'],
      files: [],
      editMethod: 'html',
      message: '\n<div>Hey Peter,<br></div><div class="">Yes, it is possible.</div>',
      threadType: 'message',
      status: { id: 3 },
      agent: { id: site.users.agent.id },
      isDraft: false,
      isPinned: false,
      mentions: [],
    };
    const reply = await post(id, sample, site.users.owner.apiKey);
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.message).toMatchObject({
      threadType: 'message',
      customer: null,
      cc: ['name@domain.com'],
      createdBy: { id: site.users.agent.id, type: 'users' },
    });
    expect((await entries(id)).at(-1)).toEqual({ created_by: site.users.agent.id, thread_type: 'message' });
    const events = await eventsSince(site.id, mark);
    expect(summary(events)).toEqual(['messages:created', 'tickets:updated']);
    // what the webhooks' payload (`eventCreatorId`) and the history are made from
    expectActor(events, site.users.agent.id);
    await drained(site.id);
    const lines = await rows(
      'SELECT event_type, created_by FROM ticket_activities WHERE ticket_id = $1 AND event_type = $2',
      [id, 'ticket.agent.reply'],
    );
    expect(lines).toEqual([{ event_type: 'ticket.agent.reply', created_by: site.users.agent.id }]);
  });

  it("an admin's note as an agent named by a numeric string; an agent writes as itself", async () => {
    const id = await newTicket();
    const note = await post(
      id,
      { message: 'internal', threadType: 'note', agent: { id: String(site.users.agent.id) } },
      site.users.admin.apiKey,
    );
    expect(note.status, note.text).toBe(201);
    expect(note.body.message).toMatchObject({ threadType: 'note', createdBy: { id: site.users.agent.id } });
    const own = await post(
      id,
      { message: 'mine', threadType: 'note', agent: { id: site.users.agent.id } },
      site.users.agent.apiKey,
    );
    expect(own.status, own.text).toBe(201);
    // null, as a client sends back what it read, is the caller
    const echoed = await post(id, { message: 'also mine', threadType: 'note', agent: null }, site.users.admin.apiKey);
    expect(echoed.status, echoed.text).toBe(201);
    expect((await entries(id)).slice(1)).toEqual([
      { created_by: site.users.agent.id, thread_type: 'note' },
      { created_by: site.users.agent.id, thread_type: 'note' },
      { created_by: site.users.admin.id, thread_type: 'note' },
    ]);
    await drained(site.id);
    const lines = await rows<{ created_by: number }>(
      'SELECT created_by FROM ticket_activities WHERE ticket_id = $1 AND event_type = $2 ORDER BY id',
      [id, 'ticket.note'],
    );
    expect(lines.map((line) => line.created_by)).toEqual([
      site.users.agent.id,
      site.users.agent.id,
      site.users.admin.id,
    ]);
  });

  it('refuses an agent writing as another teammate (403), and a collaborator at all; nothing written', async () => {
    const id = await newTicket();
    const before = await entries(id);
    expectError(
      await post(id, { message: 'as the admin', agent: { id: site.users.admin.id } }, site.users.agent.apiKey),
      403,
    );
    expectError(
      await post(
        id,
        { message: 'as the owner', threadType: 'note', agent: { id: site.users.owner.id } },
        site.users.agent.apiKey,
      ),
      403,
    );
    expectError(
      await post(
        id,
        { message: 'as the agent', threadType: 'note', agent: { id: site.users.agent.id } },
        site.users.collaborator.apiKey,
      ),
      403,
    );
    expect(await entries(id)).toEqual(before);
  });

  it("refuses another installation's user, a deactivated teammate, a collaborator and one who does not see the ticket: 400 naming agent, nothing written", async () => {
    const id = await newTicket();
    const before = await entries(id);
    const statusBefore = await rows('SELECT status_id, updated_at FROM tickets WHERE id = $1', [id]);
    const other = await newInstallation('threads-as-teammate-other');
    const deactivated = await addTeammate('agent', 'deleted');
    const outsider = await addTeammate('agent');
    const refused = [
      other.users.agent.id,
      other.users.owner.id,
      deactivated,
      site.users.collaborator.id,
      outsider,
      2_000_000_000,
    ];
    for (const agent of refused) {
      for (const threadType of ['message', 'note']) {
        expectError(
          await post(
            id,
            { message: 'as them', threadType, status: { id: 4 }, agent: { id: agent } },
            site.users.owner.apiKey,
          ),
          400,
          'message.agent',
        );
      }
    }
    expectError(await post(id, { message: 'x', agent: { id: 'twelve' } }, site.users.owner.apiKey), 400, /agent/);
    expectError(await post(id, { message: 'x', agent: { id: -3 } }, site.users.owner.apiKey), 400, /agent/);
    expect(await entries(id)).toEqual(before);
    expect(await rows('SELECT status_id, updated_at FROM tickets WHERE id = $1', [id])).toEqual(statusBefore);
    // once the outsider works the inbox, the same write is theirs
    await rows(`INSERT INTO inbox_users (installation_id, inbox_id, user_id) VALUES ($1, $2, $3)`, [
      site.id,
      inbox,
      outsider,
    ]);
    const now = await post(id, { message: 'as them', agent: { id: outsider } }, site.users.owner.apiKey);
    expect(now.status, now.text).toBe(201);
    expect(now.body.message.createdBy.id).toBe(outsider);
  });
});
