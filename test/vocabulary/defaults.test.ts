// What a new installation starts with (src/installations/provision.ts): the platform's statuses
// with its ids and codes, priorities, types, sources, a default inbox and default business hours.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';

let site: SeededInstallation;
let key: string;

beforeAll(async () => {
  site = await newInstallation('defaults');
  key = site.users.agent.apiKey;
});

describe('a new installation', () => {
  it("has the platform's six statuses with its ids and codes, none custom", async () => {
    const response = await api('/v2/ticketstatuses.json', { key, query: { orderBy: 'displayOrder' } });
    expect(response.status, response.text).toBe(200);
    expect(response.body.ticketstatuses.map((s: any) => [s.id, s.code, s.name, s.isCustom])).toEqual([
      [1, 'active', 'Active', false],
      [3, 'waiting', 'Waiting on customer', false],
      [4, 'onhold', 'On hold', false],
      [5, 'solved', 'Solved', false],
      [6, 'closed', 'Closed', false],
      [7, 'spam', 'Spam', false],
    ]);
    expect(response.body.pagination).toMatchObject({ records: 6, page: 1 });
  });

  it('has priorities, types (Question the default) and sources', async () => {
    const priorities = await api('/v2/ticketpriorities.json', { key, query: { orderBy: 'displayOrder' } });
    expect(priorities.body.ticketpriorities.map((p: any) => p.name)).toEqual(['Low', 'Medium', 'High', 'Urgent']);
    const types = await api('/v2/tickettypes.json', { key, query: { orderBy: 'displayOrder' } });
    expect(types.body.tickettypes.map((t: any) => [t.name, t.default])).toEqual([
      ['Question', true],
      ['Problem', false],
      ['Feature request', false],
    ]);
    const sources = await api('/v2/ticketsources.json', { key, query: { orderBy: 'displayOrder' } });
    expect(sources.body.ticketSources.map((s: any) => [s.name, s.isCustom])).toEqual([
      ['Email', false],
      ['Chat', false],
      ['Phone', false],
      ['Web form', false],
      ['API', false],
      ['Twitter', false],
      ['Facebook', false],
    ]);
  });

  it('has a default inbox opening tickets as active, and default business hours Monday to Friday', async () => {
    const inboxes = await rows('SELECT name, ticket_status_id FROM inboxes WHERE installation_id = $1', [site.id]);
    expect(inboxes).toEqual([{ name: 'Support', ticket_status_id: 1 }]);
    const hours = await api('/v2/businesshours.json', { key, query: { includes: 'businesshoursschedules' } });
    expect(hours.status, hours.text).toBe(200);
    expect(hours.body.businesshours).toEqual([
      expect.objectContaining({ name: 'Working hours', isDefault: true, timezoneId: 1, timezone_name: 'UTC' }),
    ]);
    expect(hours.body.included.businesshoursschedules.map((s: any) => [s.day, s.startHour, s.endHour])).toEqual(
      [1, 2, 3, 4, 5].map((day) => [day, '09:00', '17:00']),
    );
  });

  it("has an owner whose key works, and no other installation's vocabulary", async () => {
    const other = await newInstallation('defaults-other');
    const created = await api('/v2/tags.json', {
      method: 'POST',
      key: other.users.owner.apiKey,
      body: { name: 'Theirs' },
    });
    expect(created.status, created.text).toBe(201);
    const mine = await api('/v2/tags.json', { key: site.users.owner.apiKey });
    expect(mine.body.tags).toEqual([]);
    const priorityIds = await rows<{ n: number }>(
      'SELECT count(DISTINCT installation_id)::int AS n FROM ticket_priorities WHERE installation_id = ANY($1)',
      [[site.id, other.id]],
    );
    expect(priorityIds[0]!.n).toBe(2);
  });
});
