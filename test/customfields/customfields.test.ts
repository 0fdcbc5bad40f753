// Custom fields and their options: the platform's shape, options only where the kind has them,
// a kind that does not change, inboxes (and inboxes made later), and the refusals, each writing
// nothing.
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
  site = await newInstallation('customfields');
  other = await newInstallation('customfields-other');
  admin = site.users.admin.apiKey;
  agent = site.users.agent.apiKey;
});

const createField = (body: unknown, key = admin, query?: Record<string, string>) =>
  api('/v2/customfields.json', { method: 'POST', key, body, query });

describe('custom fields', () => {
  it('are made with their options in one write, read with includes=customfieldoptions, one event each', async () => {
    const mark = await lastEventId(site.id);
    const created = await createField(
      {
        customfield: {
          agentLabel: 'Order number',
          customerLabel: 'Your order',
          kind: 'dropdown',
          agentRequired: true,
          options: [{ name: 'Web' }, { name: 'Phone', displayOrder: 2 }],
        },
      },
      admin,
      { includes: 'customfieldoptions' },
    );
    expect(created.status, created.text).toBe(201);
    const field = created.body.customfield;
    expect(field).toMatchObject({
      type: 'customfields',
      agentLabel: 'Order number',
      customerLabel: 'Your order',
      kind: 'dropdown',
      agentRequired: true,
      customerRequired: false,
      enabled: true,
      addToNewInboxes: true,
      description: '',
      displayOrder: 0,
    });
    expect(field.options).toHaveLength(2);
    expect(
      created.body.included.customfieldoptions.map((o: { name: string; displayOrder: number }) => [
        o.name,
        o.displayOrder,
      ]),
    ).toEqual([
      ['Web', 0],
      ['Phone', 2],
    ]);
    expect(created.body.included.customfieldoptions[0].customfield).toEqual({ id: field.id, type: 'customfields' });
    expect(summary(await eventsSince(site.id, mark))).toEqual([
      'customfields:created',
      'customfieldoptions:created',
      'customfieldoptions:created',
    ]);

    const listed = await api('/v2/customfieldoptions.json', {
      key: agent,
      query: { filter: JSON.stringify({ customfield: field.id }) },
    });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.customfieldoptions.map((o: { name: string }) => o.name)).toEqual(['Web', 'Phone']);
    expect(listed.body.meta.page.count).toBe(2);

    const option = await api('/v2/customfieldoptions.json', {
      method: 'POST',
      key: admin,
      body: { customfieldoption: { name: 'Chat', customfield: { id: field.id } } },
    });
    expect(option.status, option.text).toBe(201);
    const read = await api(`/v2/customfields/${field.id}.json`, { key: agent, query: { includes: 'options' } });
    expect(read.body.customfield.options).toHaveLength(3);
  });

  it('keeps its kind, has options only as a dropdown or checkboxes, and answers 400 naming what is wrong, writing nothing', async () => {
    const text = (await createField({ customfield: { agentLabel: 'Serial', kind: 'text' } })).body.customfield;
    const mark = await lastEventId(site.id);
    expectError(
      await api(`/v2/customfields/${text.id}.json`, {
        method: 'PATCH',
        key: admin,
        body: { customfield: { kind: 'number' } },
      }),
      400,
      'customfield.kind',
    );
    expectError(
      await api(`/v2/customfields/${text.id}.json`, {
        method: 'PATCH',
        key: admin,
        body: { customfield: { options: [{ name: 'A' }] } },
      }),
      400,
      'customfield.options',
    );
    expectError(
      await createField({ customfield: { agentLabel: 'Notes', kind: 'textarea', options: [{ name: 'A' }] } }),
      400,
      'customfield.options',
    );
    expectError(
      await api('/v2/customfieldoptions.json', {
        method: 'POST',
        key: admin,
        body: { customfieldoption: { name: 'A', customfield: { id: text.id } } },
      }),
      400,
      'customfieldoption.customfield',
    );
    expectError(await createField({ customfield: { agentLabel: 'Colour', kind: 'colour' } }), 400, 'customfield.kind');
    expectError(await createField({ customfield: { kind: 'text' } }), 400, 'customfield.agentLabel');
    expectError(
      await createField({ customfield: { agentLabel: 'serial', kind: 'number' } }),
      409,
      'customfield.agentLabel',
    );
    expectError(
      await createField({
        customfield: { agentLabel: 'Two', kind: 'dropdown', options: [{ name: 'Same' }, { name: 'same' }] },
      }),
      409,
      'customfield.options',
    );
    expectError(
      await createField({ customfield: { agentLabel: 'Surplus', kind: 'tint', colour: 'red' } }),
      400,
      'customfield.kind',
    );
    expect(await eventsSince(site.id, mark)).toEqual([]);
    expect(
      await rows(
        "SELECT count(*)::int AS n FROM custom_fields WHERE installation_id = $1 AND agent_label IN ('Notes', 'Colour', 'Two', 'Surplus')",
        [site.id],
      ),
    ).toEqual([{ n: 0 }]);
  });

  it("an option stays with its field, and another installation's field or option is not there", async () => {
    const dropdown = (
      await createField(
        { customfield: { agentLabel: 'Plan', kind: 'checkboxes', options: [{ name: 'Gold' }] } },
        admin,
        { includes: 'customfieldoptions' },
      )
    ).body;
    const second = (await createField({ customfield: { agentLabel: 'Region', kind: 'dropdown' } })).body.customfield;
    const optionId = dropdown.customfield.options[0].id;
    expectError(
      await api(`/v2/customfieldoptions/${optionId}.json`, {
        method: 'PATCH',
        key: admin,
        body: { customfieldoption: { customfield: { id: second.id } } },
      }),
      400,
      'customfieldoption.customfield',
    );
    expect(
      (
        await api(`/v2/customfieldoptions/${optionId}.json`, {
          method: 'PATCH',
          key: admin,
          body: { customfieldoption: { name: 'Platinum' } },
        })
      ).body.customfieldoption.name,
    ).toBe('Platinum');
    const foreign = other.users.admin.apiKey;
    expect((await api(`/v2/customfields/${second.id}.json`, { key: foreign })).status).toBe(404);
    expect((await api(`/v2/customfieldoptions/${optionId}.json`, { key: foreign })).status).toBe(404);
    expectError(
      await api('/v2/customfieldoptions.json', {
        method: 'POST',
        key: foreign,
        body: { customfieldoption: { name: 'X', customfield: { id: second.id } } },
      }),
      400,
      'customfieldoption.customfield',
    );
  });

  it('are written by owners and admins only, read by every teammate', async () => {
    expect((await createField({ customfield: { agentLabel: 'By agent', kind: 'text' } }, agent)).status).toBe(403);
    expect(
      (
        await createField(
          { customfield: { agentLabel: 'By collaborator', kind: 'text' } },
          site.users.collaborator.apiKey,
        )
      ).status,
    ).toBe(403);
    expect((await api('/v2/customfields.json', { key: site.users.collaborator.apiKey })).status).toBe(200);
    expect(
      (
        await api('/v2/customfields.json', { key: agent, query: { filter: JSON.stringify({ kind: 'dropdown' }) } })
      ).body.customfields.every((f: { kind: string }) => f.kind === 'dropdown'),
    ).toBe(true);
  });

  it('limited to inboxes, joins inboxes made later when it asks to', async () => {
    const inbox = (await api('/v2/inboxes.json', { key: admin })).body.inboxes[0].id;
    const joins = (await createField({ customfield: { agentLabel: 'Joins', kind: 'date', inboxes: [{ id: inbox }] } }))
      .body.customfield;
    const stays = (
      await createField({
        customfield: { agentLabel: 'Stays', kind: 'number', inboxes: [{ id: inbox }], addToNewInboxes: false },
      })
    ).body.customfield;
    const everywhere = (await createField({ customfield: { agentLabel: 'Everywhere', kind: 'text' } })).body
      .customfield;
    const made = await api('/v2/inboxes.json', {
      method: 'POST',
      key: admin,
      body: { inbox: { name: 'Later', email: 'later@customfields.test' } },
    });
    expect(made.status, made.text).toBe(201);
    const inboxesOf = async (id: number) =>
      (
        await api(`/v2/customfields/${id}.json`, { key: admin, query: { includes: 'inboxes' } })
      ).body.customfield.inboxes.map((i: { id: number }) => i.id);
    expect(await inboxesOf(joins.id)).toEqual([inbox, made.body.inbox.id]);
    expect(await inboxesOf(stays.id)).toEqual([inbox]);
    expect(await inboxesOf(everywhere.id)).toEqual([]);
    const foreignInbox = (await api('/v2/inboxes.json', { key: other.users.admin.apiKey })).body.inboxes[0].id;
    expectError(
      await createField({ customfield: { agentLabel: 'Foreign', kind: 'text', inboxes: [{ id: foreignInbox }] } }),
      400,
      /customfield\.inboxes/,
    );
  });
});
