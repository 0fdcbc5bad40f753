// GET /v2/announcement.json: the newest live announcement compatible with the caller's role,
// or 204 with no body when there is none.
import { describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import type { UserRole } from '../../src/db/schema';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError, insertAnnouncement } from './fixtures';

const PATH = '/v2/announcement.json';
const ROLES: UserRole[] = ['owner', 'admin', 'agent', 'collaborator'];

async function titleFor(site: SeededInstallation, role: UserRole): Promise<string | null> {
  const response = await api(PATH, { key: site.users[role].apiKey });
  if (response.status === 204) {
    expect(response.text).toBe('');
    return null;
  }
  expect(response.status, response.text).toBe(200);
  return response.body.announcement.title;
}

describe('GET /v2/announcement.json', () => {
  it('answers 204 with no body when the installation has no announcement', async () => {
    const site = await newInstallation('announce-none');
    for (const role of ROLES) {
      const response = await api(PATH, { key: site.users[role].apiKey });
      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      expect(response.headers.get('content-type')).toBeNull();
    }
  });

  it('answers 200 with the singular wrapper', async () => {
    const site = await newInstallation('announce-one');
    const id = await insertAnnouncement(site.id, { title: 'Maintenance tonight', expiresIn: '1 day' });
    const response = await api(PATH, { key: site.users.collaborator.apiKey });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['announcement', 'included']);
    expect(response.body.announcement).toMatchObject({
      id,
      type: 'announcements',
      title: 'Maintenance tonight',
      body: 'Body of Maintenance tonight',
      audience: 'everyone',
      state: 'active',
    });
    expect(response.body.announcement.publishedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(response.body.announcement.expiresAt)).toBeGreaterThan(Date.now());
    expect(response.body.included).toEqual({});
  });

  it('gives each role the newest announcement addressed to an audience it belongs to', async () => {
    const site = await newInstallation('announce-roles');
    await insertAnnouncement(site.id, { title: 'for everyone', audience: 'everyone', publishedAgo: '5 hours' });
    await insertAnnouncement(site.id, { title: 'for agents', audience: 'agents', publishedAgo: '4 hours' });
    await insertAnnouncement(site.id, { title: 'for admins', audience: 'admins', publishedAgo: '3 hours' });
    await insertAnnouncement(site.id, { title: 'for owners', audience: 'owners', publishedAgo: '2 hours' });
    expect(await titleFor(site, 'owner')).toBe('for owners');
    expect(await titleFor(site, 'admin')).toBe('for admins');
    expect(await titleFor(site, 'agent')).toBe('for agents');
    expect(await titleFor(site, 'collaborator')).toBe('for everyone');
  });

  it('gives a role nothing when no announcement is addressed to it', async () => {
    const site = await newInstallation('announce-owners-only');
    await insertAnnouncement(site.id, { title: 'owners only', audience: 'owners' });
    await insertAnnouncement(site.id, { title: 'admins only', audience: 'admins', publishedAgo: '1 hour' });
    expect(await titleFor(site, 'owner')).toBe('owners only');
    expect(await titleFor(site, 'admin')).toBe('admins only');
    expect(await titleFor(site, 'agent')).toBeNull();
    expect(await titleFor(site, 'collaborator')).toBeNull();
  });

  it('leaves out announcements not yet published, expired, deleted, or of another installation', async () => {
    const site = await newInstallation('announce-live');
    const other = await newInstallation('announce-live-other');
    await insertAnnouncement(site.id, { title: 'old but live', publishedAgo: '10 days' });
    await insertAnnouncement(site.id, { title: 'scheduled', publishedAgo: '-1 hour' });
    await insertAnnouncement(site.id, { title: 'expired', publishedAgo: '1 hour', expiresIn: '-1 second' });
    await insertAnnouncement(site.id, { title: 'withdrawn', publishedAgo: '1 minute', state: 'deleted' });
    await insertAnnouncement(other.id, { title: 'elsewhere', publishedAgo: '1 second' });
    for (const role of ROLES) expect(await titleFor(site, role), role).toBe('old but live');
  });

  it('breaks a tie in publication time on the newest id', async () => {
    const site = await newInstallation('announce-tie');
    const [first] = await rows<{ id: number }>(
      `INSERT INTO announcements (installation_id, title, body, published_at) VALUES ($1, 'first', 'b', '2026-01-01T00:00:00Z'), ($1, 'second', 'b', '2026-01-01T00:00:00Z') RETURNING id`,
      [site.id],
    );
    expect(first).toBeDefined();
    expect(await titleFor(site, 'agent')).toBe('second');
  });

  it('accepts includes=users and all; refuses other includes, naming them', async () => {
    const site = await newInstallation('announce-includes');
    await rows(
      `INSERT INTO announcements (installation_id, title, body, created_by, updated_by) VALUES ($1, 't', 'b', $2, $2)`,
      [site.id, site.users.owner.id],
    );
    const response = await api(`${PATH}?includes=users`, { key: site.users.agent.apiKey });
    expect(response.status, response.text).toBe(200);
    expect(response.body.included.users.map((u: { id: number }) => u.id)).toEqual([site.users.owner.id]);
    expect((await api(`${PATH}?includes=all`, { key: site.users.agent.apiKey })).body.included).toEqual(
      response.body.included,
    );
    expectError(
      await api(`${PATH}?includes=announcements`, { key: site.users.agent.apiKey }),
      400,
      'includes',
      /"announcements"/,
    );
  });

  it('answers 401 without a credential', async () => {
    expectError(await api(PATH), 401, /.*/);
  });
});
