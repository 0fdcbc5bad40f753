// Issue 32: the platform's forms send an empty web address as "" (its customer samples:
// `"avatarURL": ""`); it means none, stored as null, while a malformed address stays a 400.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';

let site: SeededInstallation;

beforeAll(async () => {
  site = await newInstallation('empty-addresses');
});

describe('web addresses sent empty', () => {
  it('are none: a customer created and changed with "" has null, and a malformed one is still a 400', async () => {
    const key = site.users.admin.apiKey;
    const created = await api('/v2/customers.json', {
      method: 'POST',
      key,
      body: {
        customer: {
          firstName: 'Ann',
          email: `ann.${Date.now()}@customer.test`,
          avatarURL: '',
          linkedinURL: '',
          facebookURL: 'https://facebook.com/ann',
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.customer).toMatchObject({
      avatarURL: null,
      linkedinURL: null,
      facebookURL: 'https://facebook.com/ann',
    });
    const id = created.body.customer.id;
    const cleared = await api(`/v2/customers/${id}.json`, {
      method: 'PATCH',
      key,
      body: { customer: { facebookURL: '' } },
    });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.customer.facebookURL).toBeNull();
    expect(await rows('SELECT avatar_url, linkedin_url, facebook_url FROM customers WHERE id = $1', [id])).toEqual([
      { avatar_url: null, linkedin_url: null, facebook_url: null },
    ]);
    for (const bad of [' ', 'not a url', 'ftp://x.test/a.png', 'javascript:alert(1)']) {
      expectError(
        await api(`/v2/customers/${id}.json`, { method: 'PATCH', key, body: { customer: { avatarURL: bad } } }),
        400,
        'customer.avatarURL',
      );
    }
  });

  it("are none on a teammate's avatar too", async () => {
    const changed = await api(`/v2/users/${site.users.agent.id}.json`, {
      method: 'PATCH',
      key: site.users.owner.apiKey,
      body: { user: { avatarURL: '' } },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.user.avatarURL).toBeNull();
  });
});
