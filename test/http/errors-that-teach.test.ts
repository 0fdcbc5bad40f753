// A 400 says what was expected where zod says only "Invalid ...": the format with an example
// (issue 34, "Errors that teach"), once a property, and still names the exact property.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation } from '../support/db';

let site: SeededInstallation;
let ticket: number;

beforeAll(async () => {
  site = await newInstallation('teach');
  const inbox = (await api('/v2/inboxes.json', { key: site.users.owner.apiKey })).body.inboxes[0].id;
  const made = await api('/v2/tickets.json', {
    method: 'POST',
    key: site.users.owner.apiKey,
    body: { ticket: { subject: 'Teach', inbox: { id: inbox }, customer: { email: 'teach@example.com' } } },
  });
  expect(made.status, made.text).toBe(201);
  ticket = made.body.ticket.id;
});

const errorsOf = async (path: string, body: unknown) => {
  const answer = await api(path, { method: 'POST', key: site.users.owner.apiKey, body });
  expect(answer.status, answer.text).toBe(400);
  return answer.body.errors as Array<{ source: string; detail: string }>;
};

describe('errors that teach', () => {
  it('says a time is RFC 3339 and shows one, once, where the text is no time at all', async () => {
    const errors = await errorsOf('/v2/timelogs.json', {
      timeLog: { ticket: { id: ticket }, seconds: 60, date: 'yesterday' },
    });
    expect(errors).toEqual([
      {
        code: 'invalid',
        source: 'timeLog.date',
        detail: 'must be a time as RFC 3339 with its offset, e.g. 2026-11-29T10:00:00Z',
      },
    ]);
  });

  it('still says a day that does not exist is one', async () => {
    const errors = await errorsOf('/v2/timelogs.json', {
      timeLog: { ticket: { id: ticket }, seconds: 60, date: '0000-01-01T00:00:00Z' },
    });
    expect(errors).toEqual([
      { code: 'invalid', source: 'timeLog.date', detail: 'must be a day that exists, from year 1' },
    ]);
  });

  it('says what an email address looks like', async () => {
    const errors = await errorsOf('/v2/customers.json', { customer: { firstName: 'Ann', email: 'ann-at-example' } });
    expect(errors.find((e) => e.source.startsWith('customer.email'))?.detail).toBe(
      'must be an email address, e.g. ann@example.com',
    );
  });

  it('names the allowed values of an enum and the type expected', async () => {
    const errors = await errorsOf('/v2/customfields.json', { customfield: { agentLabel: 7, kind: 'slider' } });
    expect(errors).toEqual(
      expect.arrayContaining([
        {
          code: 'invalid',
          source: 'customfield.kind',
          detail: expect.stringContaining('"text"|"textarea"|"number"|"date"|"dropdown"|"checkboxes"'),
        },
        { code: 'invalid', source: 'customfield.agentLabel', detail: expect.stringMatching(/expected string/) },
      ]),
    );
  });
});
