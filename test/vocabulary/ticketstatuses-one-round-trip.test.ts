// A ticket status's create and update are one exchange with the database (one HTTP batch, no
// WebSocket connection): a name the platform's six hold, an installation's own name taken, a
// platform status or another installation's are refused in that exchange with the 409 or 404 they
// always were, writing nothing (docs/connection-strategy.md, "Writes in one round trip").
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { withRoundTrips } from '../support/round-trips';

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;

beforeAll(async () => {
  site = await newInstallation('status-trips');
  other = await newInstallation('status-trips-other');
  admin = site.users.admin.apiKey;
  // each credential is looked up once, then remembered: the writes below are the write alone
  await api('/v2/ticketstatuses.json', { key: admin });
  await api('/v2/ticketstatuses.json', { key: other.users.owner.apiKey });
});

const create = (ticketstatus: Record<string, unknown>, key = admin) =>
  withRoundTrips('/v2/ticketstatuses.json', { method: 'POST', key, body: { ticketstatus } });
const update = (id: number, ticketstatus: Record<string, unknown>, key = admin) =>
  withRoundTrips(`/v2/ticketstatuses/${id}.json`, { method: 'PATCH', key, body: { ticketstatus } });
const ownStatuses = async (installation: number) =>
  rows('SELECT id, name, code FROM ticket_statuses WHERE installation_id = $1 ORDER BY id', [installation]);

describe('a ticket status in one round trip', () => {
  it('is created and renamed in one exchange each, with its events', async () => {
    const made = await create({ name: 'Escalated', code: 'onhold', color: '#AA00FF' });
    expect(made.answer.status, made.answer.text).toBe(201);
    expect(made.trips).toBe(1);
    const id = made.answer.body.ticketstatus.id as number;
    expect(made.answer.body.ticketstatus).toMatchObject({
      name: 'Escalated',
      code: 'onhold',
      color: '#aa00ff',
      isCustom: true,
    });
    const renamed = await update(id, { name: 'Escalated twice', code: 'waiting' });
    expect(renamed.answer.status, renamed.answer.text).toBe(200);
    expect(renamed.trips).toBe(1);
    expect(renamed.answer.body.ticketstatus).toMatchObject({ id, name: 'Escalated twice', code: 'waiting' });
    const events = await rows<{ kind: string }>(
      `SELECT kind FROM events WHERE record_type = 'ticketstatuses' AND record_id = $1 ORDER BY id`,
      [id],
    );
    expect(events.map((event) => event.kind)).toEqual(['created', 'updated']);
  });

  it("refuses a platform status's name, a name taken, a platform status and another installation's, in the same exchange, writing nothing", async () => {
    const kept = (await create({ name: 'Kept' })).answer.body.ticketstatus.id as number;
    const before = await ownStatuses(site.id);
    for (const refused of [await create({ name: 'SOLVED' }), await update(kept, { name: 'solved', code: 'closed' })]) {
      expect(refused.answer.status).toBe(409);
      expect(refused.answer.body.errors).toEqual([
        {
          code: 'conflict',
          source: 'ticketstatus.name',
          detail: 'a status with this name already exists (ticketstatus 5)',
        },
      ]);
      expect(refused.trips).toBe(1);
    }
    const taken = await create({ name: 'kept' });
    expect(taken.answer.status).toBe(409);
    expect(taken.answer.body.errors).toEqual([
      expect.objectContaining({ code: 'conflict', source: 'ticketstatus.name' }),
    ]);
    expect(taken.trips).toBe(1);

    const platform = await update(3, { name: 'Waiting on them' });
    expect(platform.answer.status).toBe(409);
    expect(platform.answer.body.errors).toEqual([expect.objectContaining({ code: 'conflict', source: 'id' })]);
    expect(platform.trips).toBe(1);

    const theirs = await update(kept, { name: 'Taken over' }, other.users.owner.apiKey);
    expect(theirs.answer.status).toBe(404);
    expect(theirs.answer.body.errors).toEqual([
      { code: 'notFound', source: 'id', detail: `ticketstatus ${kept} not found` },
    ]);
    expect(theirs.trips).toBe(1);

    expect(await ownStatuses(site.id)).toEqual(before);
    expect(await ownStatuses(other.id)).toEqual([]);
    expect(await rows(`SELECT name FROM ticket_statuses WHERE id = 3`)).toEqual([{ name: 'Waiting on customer' }]);
  });
});
