// A holiday's and a schedule's business hours in both of the platform's forms: `businesshours_id`
// (the spec's integer) and `businesshours: {"id": N}` (a reference, as the platform's samples name
// related records). Both read back the same; another installation's hours are refused either way,
// nothing written.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { snapshot, zoneId } from './support';

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;
let hours: number;
let secondHours: number;
let theirHours: number;

const createHours = async (key: string, name: string) => {
  const made = await api('/v2/businesshours.json', {
    method: 'POST',
    key,
    body: { name, timezoneId: await zoneId('Europe/Dublin') },
  });
  expect(made.status, made.text).toBe(201);
  return made.body.businesshour.id as number;
};

beforeAll(async () => {
  site = await newInstallation('parent-forms');
  other = await newInstallation('parent-forms-other');
  admin = site.users.admin.apiKey;
  hours = await createHours(admin, 'Forms main');
  secondHours = await createHours(admin, 'Forms second');
  theirHours = await createHours(other.users.admin.apiKey, 'Theirs');
});

const KINDS = [
  {
    path: '/v2/businesshoursholidays',
    wrapper: 'businesshoursholiday',
    table: 'business_hours_holidays',
    own: (n: number) => ({ name: `Day off ${n}`, startDate: `2027-01-0${n}`, endDate: `2027-01-0${n}` }),
  },
  {
    path: '/v2/businesshoursschedules',
    wrapper: 'businesshoursschedule',
    table: 'business_hours_schedules',
    own: (n: number) => ({ day: n, startHour: '09:00', endHour: '17:00' }),
  },
] as const;

for (const kind of KINDS) {
  describe(`${kind.path}.json`, () => {
    it('takes businesshours {"id": N} as businesshours_id: N, both reading back the same', async () => {
      const byReference = await api(`${kind.path}.json`, {
        method: 'POST',
        key: admin,
        body: { [kind.wrapper]: { ...kind.own(1), businesshours: { id: hours } } },
      });
      expect(byReference.status, byReference.text).toBe(201);
      const byId = await api(`${kind.path}.json`, {
        method: 'POST',
        key: admin,
        body: { [kind.wrapper]: { ...kind.own(2), businesshours_id: hours } },
      });
      expect(byId.status, byId.text).toBe(201);
      for (const made of [byReference, byId]) {
        const record = made.body[kind.wrapper];
        expect(record).toMatchObject({ businesshours_id: hours, businesshours: { id: hours, type: 'businesshours' } });
        expect((await api(`${kind.path}/${record.id}.json`, { key: admin })).body[kind.wrapper]).toMatchObject({
          businesshours_id: hours,
          businesshours: { id: hours, type: 'businesshours' },
        });
        expect(
          await rows(`SELECT businesshours_id, installation_id FROM ${kind.table} WHERE id = $1`, [record.id]),
        ).toEqual([{ businesshours_id: hours, installation_id: site.id }]);
      }
      // unwrapped, as the platform's samples often send a record
      const bare = await api(`${kind.path}.json`, {
        method: 'POST',
        key: admin,
        body: { ...kind.own(3), businesshours: { id: hours } },
      });
      expect(bare.status, bare.text).toBe(201);
      expect(bare.body[kind.wrapper].businesshours_id).toBe(hours);
    });

    it('moves to other hours by either form on PATCH, and takes both forms when they agree', async () => {
      const made = await api(`${kind.path}.json`, {
        method: 'POST',
        key: admin,
        body: { [kind.wrapper]: { ...kind.own(4), businesshours_id: hours } },
      });
      const id = made.body[kind.wrapper].id;
      const moved = await api(`${kind.path}/${id}.json`, {
        method: 'PATCH',
        key: admin,
        body: { [kind.wrapper]: { businesshours: { id: secondHours } } },
      });
      expect(moved.status, moved.text).toBe(200);
      expect(moved.body[kind.wrapper]).toMatchObject({
        businesshours_id: secondHours,
        businesshours: { id: secondHours },
      });
      const back = await api(`${kind.path}/${id}.json`, {
        method: 'PATCH',
        key: admin,
        body: { [kind.wrapper]: { businesshours_id: hours, businesshours: { id: hours } } },
      });
      expect(back.status, back.text).toBe(200);
      expect(await rows(`SELECT businesshours_id FROM ${kind.table} WHERE id = $1`, [id])).toEqual([
        { businesshours_id: hours },
      ]);
    });

    it("refuses another installation's hours in either form, and forms that disagree or are missing, writing nothing", async () => {
      const before = await snapshot([site.id, other.id]);
      expectError(
        await api(`${kind.path}.json`, {
          method: 'POST',
          key: admin,
          body: { [kind.wrapper]: { ...kind.own(5), businesshours: { id: theirHours } } },
        }),
        400,
        `${kind.wrapper}.businesshours`,
      );
      expectError(
        await api(`${kind.path}.json`, {
          method: 'POST',
          key: admin,
          body: { [kind.wrapper]: { ...kind.own(5), businesshours_id: theirHours } },
        }),
        400,
        `${kind.wrapper}.businesshours_id`,
      );
      expectError(
        await api(`${kind.path}.json`, {
          method: 'POST',
          key: admin,
          body: { [kind.wrapper]: { ...kind.own(5), businesshours_id: hours, businesshours: { id: secondHours } } },
        }),
        400,
        `${kind.wrapper}.businesshours`,
      );
      expectError(
        await api(`${kind.path}.json`, { method: 'POST', key: admin, body: { [kind.wrapper]: kind.own(5) } }),
        400,
        `${kind.wrapper}.businesshours_id`,
      );
      const [mine] = await rows<{ id: number }>(
        `SELECT id FROM ${kind.table} WHERE installation_id = $1 AND state = 'active' ORDER BY id LIMIT 1`,
        [site.id],
      );
      expectError(
        await api(`${kind.path}/${mine!.id}.json`, {
          method: 'PATCH',
          key: admin,
          body: { [kind.wrapper]: { businesshours: { id: theirHours } } },
        }),
        400,
        `${kind.wrapper}.businesshours`,
      );
      expect(await snapshot([site.id, other.id])).toEqual(before);
    });
  });
}
