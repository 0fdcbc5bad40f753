import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../support/api';
import { newInstallation } from '../support/db';
import type { SeededInstallation } from '../../scripts/seed';

let site: SeededInstallation;
beforeAll(async () => {
  site = await newInstallation('smoke');
});

describe('smoke', () => {
  it('creates and reads a company', async () => {
    const key = site.users.owner.apiKey;
    const created = await api('/v2/companies.json', { method: 'POST', key, body: { company: { name: 'Acme', domains: [{ name: 'acme.com' }] } } });
    expect(created.status, created.text).toBe(201);
    const got = await api(`/v2/companies/${created.body.company.id}.json?includes=all`, { key });
    expect(got.status, got.text).toBe(200);
    console.log(JSON.stringify(got.body, null, 1));
    const list = await api(`/v2/companies.json?includes=all`, { key });
    console.log(JSON.stringify(list.body, null, 1));
  });
});
