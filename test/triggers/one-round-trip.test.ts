// A trigger's create or update that names no conditions or actions is one batch: a new one in one
// exchange with the database, an update in two (the stored trigger read first, as its rules are
// over it), what it names checked in the batch; a refusal answers the same 4xx as ever and leaves
// nothing written (docs/connection-strategy.md). A write naming conditions or actions is
// interactive still.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { rows } from '../support/db';
import { eventsSince, lastEventId } from '../support/events';
import { withRoundTrips } from '../support/round-trips';
import { triggerSite } from './trigger-site';

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;
let low: number;

beforeAll(async () => {
  ({ site, other, admin, low } = await triggerSite('trigger-trips'));
  // the credential is looked up once, then remembered: the requests below are the write alone
  await api('/v2/triggers.json', { key: admin });
});

const tripsOf = (path: string, method: string, trigger: Record<string, unknown>) => withRoundTrips(path, { key: admin, method, body: { trigger } });
const patch = (id: number, trigger: Record<string, unknown>) => tripsOf(`/v2/triggers/${id}.json`, 'PATCH', trigger);

const made = async (trigger: Record<string, unknown>) => {
  const answer = await api('/v2/triggers.json', { method: 'POST', key: admin, body: { trigger } });
  expect(answer.status, answer.text).toBe(201);
  return answer.body.trigger.id as number;
};

describe('triggers in one batch', () => {
  it('creates a manual trigger in one exchange, and renames, switches and applies an automatic one to existing tickets in two', async () => {
    const manual = await tripsOf('/v2/triggers.json', 'POST', { name: 'Trip by hand', type: 'Manual', state: 'inactive' });
    expect(manual.answer.status, manual.answer.text).toBe(201);
    expect(manual.trips).toBe(1);
    expect(manual.answer.body.trigger).toMatchObject({ name: 'Trip by hand', type: 'Manual', state: 'inactive' });

    const id = await made({ name: 'Trip low', state: 'inactive', conditions: [{ field: 11, operator: 1, value: 'trip' }], triggeractions: [{ type: 2, value: String(low) }] });
    const renamed = await patch(id, { name: 'Trip low priority', state: 'active' });
    expect(renamed.answer.status, renamed.answer.text).toBe(200);
    expect(renamed.trips).toBe(2);
    expect(renamed.answer.body.trigger).toMatchObject({ name: 'Trip low priority', state: 'active' });
    const applied = await patch(id, { applyToExistingTickets: true });
    expect(applied.answer.status, applied.answer.text).toBe(200);
    expect(applied.trips).toBe(2);
    expect(applied.answer.body.trigger.applyingToExistingTickets).toBe(true);
  });

  it('refuses switching on a trigger naming a deleted tag, and one assigning to a collaborator, in the batch, writing nothing', async () => {
    const tag = (await api('/v2/tags.json', { method: 'POST', key: admin, body: { name: 'trip-doomed' } })).body.tag.id as number;
    const doomed = await made({ name: 'Trip doomed', state: 'inactive', conditions: [{ field: 11, operator: 1, value: 'doomed' }], triggeractions: [{ type: 5, value: String(tag) }] });
    const agent = site.users.agent.id;
    const assigning = await made({ name: 'Trip assigning', state: 'inactive', conditions: [{ field: 11, operator: 1, value: 'assign' }], triggeractions: [{ type: 4, value: String(agent) }] });
    expect((await api(`/v2/tags/${tag}.json`, { method: 'DELETE', key: admin })).status).toBe(204);
    const [action] = await rows<{ id: number }>(`SELECT id FROM trigger_actions WHERE trigger_id = $1`, [doomed]);
    const [assignment] = await rows<{ id: number }>(`SELECT id FROM trigger_actions WHERE trigger_id = $1`, [assigning]);
    await rows(`UPDATE users SET role = 'collaborator' WHERE id = $1`, [agent]);
    try {
      const mark = await lastEventId(site.id);
      const switched = await patch(doomed, { name: 'Trip on', state: 'active' });
      expect(switched.answer.status, switched.answer.text).toBe(400);
      expect(switched.answer.body.errors).toEqual([{ code: 'invalid', source: 'trigger.triggeractions', detail: `action ${action!.id} (add tags): some of tags ${tag} are not here` }]);
      expect(switched.trips).toBe(2);
      // switched off, it may name what is gone; a collaborator it may not name even so
      const renamed = await patch(assigning, { name: 'Trip renamed' });
      expect(renamed.answer.status, renamed.answer.text).toBe(400);
      expect(renamed.answer.body.errors).toEqual([{ code: 'invalid', source: 'trigger.triggeractions', detail: `action ${assignment!.id} (assign agent (empty: unassign)): user ${agent} is a collaborator: a ticket is assigned to an owner, admin or agent` }]);
      expect(renamed.trips).toBe(2);
      expect(await eventsSince(site.id, mark)).toEqual([]);
      expect(await rows(`SELECT name, state FROM triggers WHERE id = ANY($1) ORDER BY id`, [[doomed, assigning]])).toEqual([
        { name: 'Trip doomed', state: 'inactive' },
        { name: 'Trip assigning', state: 'inactive' },
      ]);
    } finally {
      await rows(`UPDATE users SET role = 'agent' WHERE id = $1`, [agent]);
    }
  });

  it("refuses what the stored trigger alone decides after reading it, and another installation's trigger (404) from the batch, writing nothing", async () => {
    const [system] = await rows<{ id: number }>(`SELECT id FROM triggers WHERE installation_id = $1 AND is_system ORDER BY id LIMIT 1`, [site.id]);
    const manual = await made({ name: 'Trip manual', type: 'Manual' });
    const theirs = (await api('/v2/triggers.json', { method: 'POST', key: other.users.admin.apiKey, body: { trigger: { name: 'Trip theirs', type: 'Manual' } } })).body.trigger.id as number;
    const mark = await lastEventId(site.id);
    for (const [id, body, status, source, detail, trips] of [
      [system!.id, { name: 'Mine now' }, 400, 'trigger.name', `trigger ${system!.id} is a system trigger: it can only be switched on or off (\`state\`)`, 1],
      [manual, { applyToExistingTickets: true }, 400, 'trigger.applyToExistingTickets', 'a manual trigger is applied by hand: PATCH /v2/tickets/triggerapply.json', 1],
      [manual, { name: 'Trip automatic', type: 'Automatic' }, 400, 'trigger.triggeractions', 'an automatic trigger needs at least one action', 1],
      [theirs, { name: 'Trip mine' }, 404, 'id', `trigger ${theirs} not found`, 2],
    ] as const) {
      const refused = await patch(id, body);
      expect(refused.answer.status, refused.answer.text).toBe(status);
      expect(refused.answer.body.errors).toEqual([{ code: status === 404 ? 'notFound' : 'invalid', source, detail }]);
      expect(refused.trips).toBe(trips);
    }
    expect(await eventsSince(site.id, mark)).toEqual([]);
    expect(await rows(`SELECT name FROM triggers WHERE id = ANY($1) ORDER BY id`, [[manual, theirs]])).toEqual([{ name: 'Trip manual' }, { name: 'Trip theirs' }]);
  });
});
