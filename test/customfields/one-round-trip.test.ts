// A custom field's or option's create or update is one exchange with the database (one HTTP
// batch): the kind that does not change, options only for the kinds that have them, an option
// that stays with its field, as statements; a rule that fails inside that exchange answers the
// same 4xx as ever and leaves nothing written (docs/connection-strategy.md).
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { eventsSince, lastEventId } from '../support/events';
import { withRoundTrips } from '../support/round-trips';

let site: SeededInstallation;
let admin: string;
let inbox: number;

const FIELDS = '/v2/customfields.json';
const OPTIONS = '/v2/customfieldoptions.json';

beforeAll(async () => {
  site = await newInstallation('customfield-trips');
  admin = site.users.admin.apiKey;
  // the credential is looked up once, then remembered: the requests below are the write alone
  inbox = (await api('/v2/inboxes.json', { key: admin })).body.inboxes[0].id;
});

/** The request's answer and its database round trips, from its log line. */
const tripsOf = (path: string, method: string, body: unknown, query?: Record<string, string>) =>
  withRoundTrips(path, { key: admin, method, body, query });

describe('custom fields in one round trip', () => {
  it('creates a dropdown with its options and inboxes, updates it, and adds and renames an option, in one exchange each', async () => {
    const made = await tripsOf(
      FIELDS,
      'POST',
      {
        customfield: {
          agentLabel: 'Trip plan',
          kind: 'dropdown',
          options: [{ name: 'Gold' }, { name: 'Silver' }],
          inboxes: [{ id: inbox }],
        },
      },
      { includes: 'customfieldoptions' },
    );
    expect(made.answer.status, made.answer.text).toBe(201);
    expect(made.trips).toBe(1);
    const field = made.answer.body.customfield;
    expect(made.answer.body.included.customfieldoptions.map((o: { name: string }) => o.name)).toEqual([
      'Gold',
      'Silver',
    ]);

    const changed = await tripsOf(`/v2/customfields/${field.id}.json`, 'PATCH', {
      customfield: { kind: 'dropdown', agentLabel: 'Trip plans', options: [{ name: 'Bronze' }] },
    });
    expect(changed.answer.status, changed.answer.text).toBe(200);
    expect(changed.trips).toBe(1);
    expect(changed.answer.body.customfield).toMatchObject({ agentLabel: 'Trip plans', kind: 'dropdown' });

    const option = await tripsOf(OPTIONS, 'POST', {
      customfieldoption: { name: 'Platinum', customfield: { id: field.id } },
    });
    expect(option.answer.status, option.answer.text).toBe(201);
    expect(option.trips).toBe(1);
    const renamed = await tripsOf(`/v2/customfieldoptions/${option.answer.body.customfieldoption.id}.json`, 'PATCH', {
      customfieldoption: { name: 'Iridium', customfield: { id: field.id } },
    });
    expect(renamed.answer.status, renamed.answer.text).toBe(200);
    expect(renamed.trips).toBe(1);
    expect(renamed.answer.body.customfieldoption.name).toBe('Iridium');
  });

  it('refuses a change of kind, options on a kind without them, and an option moved to another field, in the same exchange, writing nothing', async () => {
    const text = (
      await api(FIELDS, {
        method: 'POST',
        key: admin,
        body: { customfield: { agentLabel: 'Trip serial', kind: 'text' } },
      })
    ).body.customfield;
    const dropdown = (
      await api(FIELDS, {
        method: 'POST',
        key: admin,
        body: { customfield: { agentLabel: 'Trip region', kind: 'dropdown', options: [{ name: 'North' }] } },
        query: { includes: 'customfieldoptions' },
      })
    ).body;
    const other = (
      await api(FIELDS, {
        method: 'POST',
        key: admin,
        body: { customfield: { agentLabel: 'Trip other', kind: 'checkboxes' } },
      })
    ).body.customfield;
    const option = dropdown.customfield.options[0].id as number;
    const mark = await lastEventId(site.id);
    for (const [path, method, body, source, detail] of [
      [
        `/v2/customfields/${text.id}.json`,
        'PATCH',
        { customfield: { agentLabel: 'Trip changed', kind: 'number' } },
        'customfield.kind',
        "a field's kind cannot change (it is text): make a new field",
      ],
      [
        `/v2/customfields/${text.id}.json`,
        'PATCH',
        { customfield: { agentLabel: 'Trip changed', options: [{ name: 'A' }] } },
        'customfield.options',
        'a text field has no options: only dropdown and checkboxes fields do',
      ],
      [
        FIELDS,
        'POST',
        { customfield: { agentLabel: 'Trip notes', kind: 'textarea', options: [{ name: 'A' }] } },
        'customfield.options',
        'a textarea field has no options: only dropdown and checkboxes fields do',
      ],
      [
        OPTIONS,
        'POST',
        { customfieldoption: { name: 'A', customfield: { id: text.id } } },
        'customfieldoption.customfield',
        'a text field has no options: only dropdown and checkboxes fields do',
      ],
      [
        `/v2/customfieldoptions/${option}.json`,
        'PATCH',
        { customfieldoption: { name: 'Moved', customfield: { id: other.id } } },
        'customfieldoption.customfield',
        'an option stays with its field: make one on the other field',
      ],
    ] as const) {
      const { answer, trips } = await tripsOf(path, method, body);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.errors).toEqual([{ code: 'invalid', source, detail }]);
      expect(trips).toBe(1);
    }
    expect(await eventsSince(site.id, mark)).toEqual([]);
    expect(await rows(`SELECT agent_label FROM custom_fields WHERE id = $1`, [text.id])).toEqual([
      { agent_label: 'Trip serial' },
    ]);
    expect(
      await rows(
        `SELECT count(*)::int AS n FROM custom_fields WHERE installation_id = $1 AND agent_label = 'Trip notes'`,
        [site.id],
      ),
    ).toEqual([{ n: 0 }]);
    expect(await rows(`SELECT name, custom_field_id FROM custom_field_options WHERE id = $1`, [option])).toEqual([
      { name: 'North', custom_field_id: dropdown.customfield.id },
    ]);
  });
});
