// Inboxes: the platform's record, members with their access, unique addresses among live inboxes,
// the mail-server password sealed and never answered, ticket types offered to new inboxes.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { DEV_PM_TOKEN_KEY } from '../../scripts/worker-vars';
import { decryptToken, inboxSecretContext } from '../../src/lib/crypto';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { eventsSince, lastEventId, summary } from '../support/events';

let site: SeededInstallation;
let admin: string;

beforeAll(async () => {
  site = await newInstallation('inboxes');
  admin = site.users.admin.apiKey;
});

const create = (body: unknown, query?: Record<string, string>) =>
  api('/v2/inboxes.json', { method: 'POST', key: admin, body, query });

describe('an inbox', () => {
  it('has the platform record; the default inbox of a new installation is there with its members', async () => {
    const list = await api('/v2/inboxes.json', { key: site.users.agent.apiKey, query: { includes: 'users' } });
    expect(list.status, list.text).toBe(200);
    const support = list.body.inboxes.find((i: any) => i.name === 'Support');
    expect(support).toMatchObject({
      type: 'inboxes',
      email: null,
      localPart: 'support',
      ticketstatus: { id: 1, type: 'ticketstatuses' },
      autoReplyEnabled: false,
      displayOrder: 0,
      languageCode: 'en',
      spamThreshold: 5,
      onClosedWait: 7,
      happinessRatingEnabled: false,
      hasSmtpPassword: false,
      smtpServer: null,
    });
    expect(support).not.toHaveProperty('smtpPassword');
    expect(support.users).toEqual(
      expect.arrayContaining([
        { id: site.users.owner.id, type: 'users', meta: { access: 'full' } },
        { id: site.users.agent.id, type: 'users', meta: { access: 'full' } },
      ]),
    );
    expect(support.users.map((u: any) => u.id)).not.toContain(site.users.collaborator.id);
  });

  it('is created with members and their access; a member changes access and leaves, each a linked or unlinked event', async () => {
    const created = await create(
      {
        inbox: {
          name: 'Billing',
          email: 'billing@acme.test',
          localPart: 'Billing',
          ticketstatus: { id: 3 },
          users: [{ id: site.users.agent.id, meta: { access: 'restricted' } }, { id: site.users.admin.id }],
        },
      },
      { includes: 'users' },
    );
    expect(created.status, created.text).toBe(201);
    const inbox = created.body.inbox;
    expect(inbox).toMatchObject({ localPart: 'billing', ticketstatus: { id: 3, type: 'ticketstatuses' } });
    expect(inbox.users).toEqual([
      { id: site.users.admin.id, type: 'users', meta: { access: 'full' } },
      { id: site.users.agent.id, type: 'users', meta: { access: 'restricted' } },
    ]);
    expect(created.body.included.users.map((u: any) => u.id).sort()).toEqual(
      [site.users.admin.id, site.users.agent.id].sort(),
    );
    const mark = await lastEventId(site.id);
    const changed = await api(`/v2/inboxes/${inbox.id}.json`, {
      method: 'PATCH',
      key: admin,
      body: {
        users: [
          { id: site.users.agent.id, meta: { access: 'full' } },
          { id: site.users.admin.id, meta: { delete: true } },
        ],
      },
      query: { includes: 'users' },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.inbox.users).toEqual([{ id: site.users.agent.id, type: 'users', meta: { access: 'full' } }]);
    const events = await eventsSince(site.id, mark);
    expect(summary(events)).toEqual(['inboxes:linked', 'inboxes:unlinked']);
    expect(events[0]!.data).toEqual({
      relation: 'users',
      record: { id: site.users.agent.id, type: 'users' },
      meta: { access: 'full' },
    });
    const members = await api('/v2/inboxes.json', {
      key: admin,
      query: { filter: { 'users.id': site.users.agent.id }, orderBy: 'id' },
    });
    expect(members.body.inboxes.map((i: any) => i.name)).toEqual(['Support', 'Billing']);
  });

  it('has an address and a local part no other live inbox has (409), free again once it is deleted', async () => {
    const first = await create({ name: 'Sales', email: 'sales@acme.test', localPart: 'sales' });
    expect(first.status, first.text).toBe(201);
    expectError(await create({ name: 'Sales 2', email: 'SALES@acme.test' }), 409, 'inbox.email');
    expectError(await create({ name: 'Sales 3', localPart: 'SALES' }), 409, 'inbox.localPart');
    expect((await api(`/v2/inboxes/${first.body.inbox.id}.json`, { method: 'DELETE', key: admin })).status).toBe(204);
    expect((await create({ name: 'Sales again', email: 'sales@acme.test', localPart: 'sales' })).status).toBe(201);
  });

  it('needs a server for a port, however the two are written', async () => {
    const id = (await create({ name: 'Ports', smtpServer: 'smtp.ports.test', smtpPort: 25 })).body.inbox.id;
    expectError(
      await api(`/v2/inboxes/${id}.json`, { method: 'PATCH', key: admin, body: { smtpServer: null } }),
      400,
      'inbox.smtpServer',
    );
    expect(
      (await api(`/v2/inboxes/${id}.json`, { method: 'PATCH', key: admin, body: { smtpServer: null, smtpPort: null } }))
        .status,
    ).toBe(200);
  });

  it('stores the mail-server password sealed: never answered, never in an event, null removes it', async () => {
    const mark = await lastEventId(site.id);
    const created = await create({
      name: 'Own SMTP',
      smtpServer: 'smtp.acme.test',
      smtpPort: 587,
      smtpUsername: 'desk',
      smtpPassword: 'hunter2-secret',
      smtpSecurity: 'starttls',
    });
    expect(created.status, created.text).toBe(201);
    expect(created.text).not.toContain('hunter2');
    expect(created.body.inbox).toMatchObject({ smtpServer: 'smtp.acme.test', smtpPort: 587, hasSmtpPassword: true });
    const [row] = await rows<{ sealed: string }>(
      'SELECT smtp_password_ciphertext AS sealed FROM inboxes WHERE id = $1',
      [created.body.inbox.id],
    );
    const id = created.body.inbox.id as number;
    // sealed under the derived key, bound to the installation and the inbox: copied to another inbox's row, it does not open
    expect(row!.sealed).toMatch(/^v2\./);
    expect(await decryptToken(row!.sealed, DEV_PM_TOKEN_KEY, inboxSecretContext(site.id, id))).toBe('hunter2-secret');
    expect(await decryptToken(row!.sealed, DEV_PM_TOKEN_KEY, inboxSecretContext(site.id, id + 1))).toBeUndefined();
    expect(await decryptToken(row!.sealed, DEV_PM_TOKEN_KEY, inboxSecretContext(site.id + 1, id))).toBeUndefined();
    const changed = await api(`/v2/inboxes/${id}.json`, {
      method: 'PUT',
      key: admin,
      body: { smtpPassword: 'another-secret' },
    });
    expect(changed.text).not.toContain('another-secret');
    const [resealed] = await rows<{ sealed: string }>(
      'SELECT smtp_password_ciphertext AS sealed FROM inboxes WHERE id = $1',
      [id],
    );
    expect(await decryptToken(resealed!.sealed, DEV_PM_TOKEN_KEY, inboxSecretContext(site.id, id))).toBe(
      'another-secret',
    );
    const cleared = await api(`/v2/inboxes/${id}.json`, { method: 'PATCH', key: admin, body: { smtpPassword: null } });
    expect(cleared.body.inbox.hasSmtpPassword).toBe(false);
    const events = await eventsSince(site.id, mark);
    expect(summary(events)).toEqual(['inboxes:created', 'inboxes:updated', 'inboxes:updated']);
    expect(JSON.stringify(events)).not.toMatch(/hunter2|another-secret|v[12]\./);
    expectError(await api('/v2/inboxes.json', { key: admin, query: { fields: 'smtpPassword' } }), 400, 'fields');
  });

  it('joins the ticket types limited to inboxes that are enabled for future inboxes', async () => {
    const earlier = (await create({ name: 'Earlier' })).body.inbox.id;
    const limited = await api('/v2/tickettypes.json', {
      method: 'POST',
      key: admin,
      body: { name: 'Refund', enabledForFutureInboxes: true, inboxes: [{ id: earlier }] },
    });
    const closed = await api('/v2/tickettypes.json', {
      method: 'POST',
      key: admin,
      body: { name: 'Legal', enabledForFutureInboxes: false, inboxes: [{ id: earlier }] },
    });
    expect(closed.status, closed.text).toBe(201);
    const created = await create({ name: 'Future' }, { includes: 'tickettypes' });
    expect(created.body.inbox.tickettypes).toEqual([{ id: limited.body.tickettype.id, type: 'tickettypes' }]);
    const type = await api(`/v2/tickettypes/${limited.body.tickettype.id}.json`, {
      key: admin,
      query: { includes: 'inboxes' },
    });
    expect(type.body.tickettype.inboxes.map((i: any) => i.id)).toContain(created.body.inbox.id);
    // a type whose only inbox was deleted is offered everywhere again: a new inbox does not narrow it
    const gone = (await create({ name: 'Gone' })).body.inbox.id;
    const everywhere = await api('/v2/tickettypes.json', {
      method: 'POST',
      key: admin,
      body: { name: 'Everywhere again', inboxes: [{ id: gone }] },
    });
    await api(`/v2/inboxes/${gone}.json`, { method: 'DELETE', key: admin });
    const later = await create({ name: 'Later' }, { includes: 'tickettypes' });
    expect(later.body.inbox.tickettypes.map((t: any) => t.id)).not.toContain(everywhere.body.tickettype.id);
  });

  it('is written by owners and admins only, and read by everyone', async () => {
    expectError(
      await api('/v2/inboxes.json', { method: 'POST', key: site.users.agent.apiKey, body: { name: 'Nope' } }),
      403,
    );
    expect((await api('/v2/inboxes.json', { key: site.users.collaborator.apiKey })).status).toBe(200);
  });
});
