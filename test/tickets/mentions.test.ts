// mentions on a reply or note: recorded on the entry (includes=mentions), the mentioned teammates
// follow the ticket (a collaborator then sees it), a name that is no teammate here is a 400.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { drained } from '../support/events';

let site: SeededInstallation;
let owner: string;
let id: number;

beforeAll(async () => {
  site = await newInstallation('ticket-mentions');
  owner = site.users.owner.apiKey;
  const inbox = (await api('/v2/inboxes.json', { key: owner })).body.inboxes[0].id;
  id = (
    await api('/v2/tickets.json', {
      method: 'POST',
      key: owner,
      body: { subject: 'Mention', inbox, customer: { email: 'mention@tickets.test' }, message: 'hi' },
    })
  ).body.ticket.id;
});

describe('mentions', () => {
  it('records the mentioned teammates and makes them followers', async () => {
    const collaborator = site.users.collaborator;
    expect((await api(`/v2/tickets/${id}.json`, { key: collaborator.apiKey })).status).toBe(404);
    const note = await api(`/v2/tickets/${id}/messages.json`, {
      method: 'POST',
      key: owner,
      query: { includes: 'mentions' },
      body: {
        message: 'can you look?',
        threadType: 'note',
        mentions: [{ id: collaborator.id, type: 'users' }, site.users.agent.id],
      },
    });
    expect(note.status, note.text).toBe(201);
    const entry = await api(`/v2/messages/${note.body.message.id}.json`, {
      key: owner,
      query: { includes: 'mentions' },
    });
    expect(entry.body.message.mentions.map((u: any) => u.id).sort()).toEqual(
      [collaborator.id, site.users.agent.id].sort(),
    );
    const followers = await api(`/v2/tickets/${id}.json`, {
      key: collaborator.apiKey,
      query: { includes: 'followers' },
    });
    expect(followers.status).toBe(200);
    expect(followers.body.ticket.followers.map((u: any) => u.id)).toContain(collaborator.id);
    await drained(site.id);
    const history = await api(`/v2/tickets/${id}/activities.json`, { key: owner, query: { pageSize: 100 } });
    expect(history.body.ticketactivities.filter((a: any) => a.eventType === 'ticket.follower.added')).toHaveLength(2);
  });

  it('refuses a teammate of no installation of ours, writing nothing', async () => {
    const stranger = await newInstallation('ticket-mentions-other');
    const before = await rows('SELECT count(*)::int AS n FROM ticket_messages WHERE ticket_id = $1', [id]);
    expectError(
      await api(`/v2/tickets/${id}/messages.json`, {
        method: 'POST',
        key: owner,
        body: { message: 'x', mentions: [{ id: stranger.users.owner.id }] },
      }),
      400,
      /message.mentions/,
    );
    expectError(
      await api(`/v2/tickets/${id}/messages.json`, {
        method: 'POST',
        key: owner,
        body: { message: 'x', mentions: ['me'] },
      }),
      400,
      /mentions/,
    );
    expect(await rows('SELECT count(*)::int AS n FROM ticket_messages WHERE ticket_id = $1', [id])).toEqual(before);
  });
});
