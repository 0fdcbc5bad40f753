// Tags, ticket priorities, types and sources: their own rules beyond the generic routes.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { eventsSince, lastEventId, summary } from '../support/events';

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;
let agent: string;

beforeAll(async () => {
  site = await newInstallation('vocab');
  other = await newInstallation('vocab-other');
  admin = site.users.admin.apiKey;
  agent = site.users.agent.apiKey;
});

describe('tags', () => {
  it('are added by any seated teammate, colour lowercased, name unique ignoring case', async () => {
    const created = await api('/v2/tags.json', {
      method: 'POST',
      key: agent,
      body: { tag: { name: 'VIP', color: '#FFAA00' } },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.tag).toMatchObject({
      type: 'tags',
      name: 'VIP',
      color: '#ffaa00',
      createdBy: { id: site.users.agent.id, type: 'users' },
    });
    expectError(
      await api('/v2/tags.json', { method: 'POST', key: agent, body: { name: 'vip' } }),
      409,
      'tag.name',
      /already exists/,
    );
    expectError(
      await api('/v2/tags.json', { method: 'POST', key: site.users.collaborator.apiKey, body: { name: 'Collab' } }),
      403,
    );
    const plain = await api('/v2/tags.json', { method: 'POST', key: agent, body: { name: 'plain' } });
    expect(plain.body.tag.color).toBe('#9e9e9e');
  });

  it('refuse a colour that is not #rrggbb', async () => {
    for (const color of ['red', '#fff', '#12345g', '', 7]) {
      expectError(
        await api('/v2/tags.json', { method: 'POST', key: agent, body: { name: `c-${String(color)}`, color } }),
        400,
        'tag.color',
      );
    }
  });

  it('free their name once deleted, and bulk update and bulk delete by filter, an event each', async () => {
    const ids: number[] = [];
    for (const name of ['bulk-a', 'bulk-b', 'keep-c'])
      ids.push((await api('/v2/tags.json', { method: 'POST', key: agent, body: { name } })).body.tag.id);
    const mark = await lastEventId(site.id);
    const updated = await api('/v2/tags/update.json', {
      method: 'PATCH',
      key: agent,
      query: { filter: { name: { $contains: 'bulk-' } } },
      body: { tag: { color: '#000000' } },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toEqual({ affected: 2, ids: ids.slice(0, 2), jobId: null, dryRun: false });
    const deleted = await api('/v2/tags/delete.json', {
      method: 'DELETE',
      key: agent,
      query: { filter: { color: '#000000' } },
    });
    expect(deleted.body).toMatchObject({ affected: 2, ids: ids.slice(0, 2) });
    expect(summary(await eventsSince(site.id, mark))).toEqual([
      'tags:updated',
      'tags:updated',
      'tags:deleted',
      'tags:deleted',
    ]);
    const again = await api('/v2/tags.json', { method: 'POST', key: agent, body: { name: 'BULK-A' } });
    expect(again.status, again.text).toBe(201);
    expect(await rows('SELECT name FROM tags WHERE id = $1', [ids[2]])).toEqual([{ name: 'keep-c' }]);
  });
});

describe('ticket types', () => {
  it('keep one default: a new default takes the flag from the old one, each with an event', async () => {
    const mark = await lastEventId(site.id);
    const created = await api('/v2/tickettypes.json', {
      method: 'POST',
      key: admin,
      body: { tickettype: { name: 'Incident', default: true, displayOrder: 4 } },
    });
    expect(created.status, created.text).toBe(201);
    const list = await api('/v2/tickettypes.json', { key: admin, query: { filter: { default: true } } });
    expect(list.body.tickettypes.map((t: any) => t.name)).toEqual(['Incident']);
    expect(summary(await eventsSince(site.id, mark))).toEqual(['tickettypes:updated', 'tickettypes:created']);
  });

  it('are limited to inboxes of the installation, linked and unlinked through `inboxes`', async () => {
    const [inbox] = await rows<{ id: number }>(
      "SELECT id FROM inboxes WHERE installation_id = $1 AND name = 'Support'",
      [site.id],
    );
    const [theirs] = await rows<{ id: number }>('SELECT id FROM inboxes WHERE installation_id = $1', [other.id]);
    const created = await api('/v2/tickettypes.json', {
      method: 'POST',
      key: admin,
      query: { includes: 'inboxes' },
      body: { name: 'Refund', inboxes: [{ id: inbox!.id, type: 'inboxes' }] },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.tickettype.inboxes).toEqual([{ id: inbox!.id, type: 'inboxes' }]);
    expect(created.body.included.inboxes).toEqual([expect.objectContaining({ id: inbox!.id, name: 'Support' })]);
    const id = created.body.tickettype.id;
    expectError(
      await api(`/v2/tickettypes/${id}.json`, { method: 'PUT', key: admin, body: { inboxes: [{ id: theirs!.id }] } }),
      400,
      'tickettype.inboxes[0].id',
    );
    const unlinked = await api(`/v2/tickettypes/${id}.json`, {
      method: 'PUT',
      key: admin,
      body: { inboxes: [{ id: inbox!.id, meta: { delete: true } }] },
    });
    expect(unlinked.status, unlinked.text).toBe(200);
    expect(unlinked.body.tickettype.inboxes).toEqual([]);
  });
});

describe('ticket sources', () => {
  it("are wrapped as the platform's client reads them: ticketSource and ticketSources", async () => {
    const created = await api('/v2/ticketsources.json', {
      method: 'POST',
      key: admin,
      body: { ticketSource: { name: 'WhatsApp', icon: 'whatsapp', displayOrder: 8 } },
    });
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.body)).toEqual(['ticketSource', 'included']);
    expect(created.body.ticketSource).toMatchObject({ type: 'ticketsources', name: 'WhatsApp', isCustom: true });
    const list = await api('/v2/ticketsources.json', { key: admin, query: { filter: { isCustom: true } } });
    expect(list.body.ticketSources.map((s: any) => s.name)).toEqual(['WhatsApp']);
    expect(list.body).not.toHaveProperty('ticketsources');
  });

  it("of the platform may be renamed but not deleted; a team's own may", async () => {
    const [email] = await rows<{ id: number }>(
      "SELECT id FROM ticket_sources WHERE installation_id = $1 AND name = 'Email'",
      [site.id],
    );
    expectError(
      await api(`/v2/ticketsources/${email!.id}.json`, { method: 'DELETE', key: admin }),
      409,
      'id',
      /cannot be deleted/,
    );
    const renamed = await api(`/v2/ticketsources/${email!.id}.json`, {
      method: 'PUT',
      key: admin,
      body: { name: 'E-mail' },
    });
    expect(renamed.body.ticketSource).toMatchObject({ name: 'E-mail', isCustom: false });
    const own = await api('/v2/ticketsources.json', { method: 'POST', key: admin, body: { name: 'Kiosk' } });
    expect(
      (await api(`/v2/ticketsources/${own.body.ticketSource.id}.json`, { method: 'DELETE', key: admin })).status,
    ).toBe(204);
    const [theirEmail] = await rows<{ id: number }>(
      "SELECT id FROM ticket_sources WHERE installation_id = $1 AND name = 'Email'",
      [other.id],
    );
    expectError(await api(`/v2/ticketsources/${theirEmail!.id}.json`, { method: 'DELETE', key: admin }), 404, 'id');
  });
});

describe('ticket priorities', () => {
  it('are created, renamed and deleted by admins; agents may not', async () => {
    const created = await api('/v2/ticketpriorities.json', {
      method: 'POST',
      key: admin,
      body: { ticketpriority: { name: 'Critical', color: '#B71C1C', displayOrder: 5 } },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.ticketpriority).toMatchObject({ name: 'Critical', color: '#b71c1c', displayOrder: 5 });
    expectError(
      await api(`/v2/ticketpriorities/${created.body.ticketpriority.id}.json`, {
        method: 'PATCH',
        key: agent,
        body: { name: 'Meh' },
      }),
      403,
    );
    expectError(
      await api('/v2/ticketpriorities.json', { method: 'POST', key: admin, body: { name: 'urgent' } }),
      409,
      'ticketpriority.name',
    );
    expect(
      (await api(`/v2/ticketpriorities/${created.body.ticketpriority.id}.json`, { method: 'DELETE', key: admin }))
        .status,
    ).toBe(204);
  });
});
