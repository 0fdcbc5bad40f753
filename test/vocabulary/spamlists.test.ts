// Spam lists: a term (email address, domain or IP address) on the whitelist or the blacklist.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';

let site: SeededInstallation;
let admin: string;

beforeAll(async () => {
  site = await newInstallation('spam');
  admin = site.users.admin.apiKey;
});

describe('a spam list entry', () => {
  it('takes an email address, a domain (with or without @) or an IP address, stored lowercase; its `type` is its list', async () => {
    const cases: [string, string][] = [
      ['Spammer@Example.COM', 'spammer@example.com'],
      ['@junk.example', 'junk.example'],
      ['mail.bad-domain.co.uk', 'mail.bad-domain.co.uk'],
      ['203.0.113.9', '203.0.113.9'],
      ['2001:DB8::1', '2001:db8::1'],
    ];
    for (const [term, stored] of cases) {
      const response = await api('/v2/spamlists.json', {
        method: 'POST',
        key: admin,
        body: { spamlist: { term, type: 'blacklist' } },
      });
      expect(response.status, response.text).toBe(201);
      expect(response.body.spamlist).toMatchObject({ term: stored, type: 'blacklist' });
    }
    const friend = await api('/v2/spamlists.json', {
      method: 'POST',
      key: admin,
      body: { term: 'friend@partner.example', type: 'whitelist' },
    });
    expect(friend.body.spamlist.type).toBe('whitelist');
    const whitelist = await api('/v2/spamlists.json', { key: admin, query: { filter: { type: 'whitelist' } } });
    expect(whitelist.body.spamlists.map((e: any) => e.term)).toEqual(['friend@partner.example']);
  });

  it('refuses what is none of those, and a missing list (400 naming it)', async () => {
    for (const term of ['not a term', 'x', 'http://example.com', '999.1.1.1', 'a@', '']) {
      expectError(
        await api('/v2/spamlists.json', { method: 'POST', key: admin, body: { term, type: 'blacklist' } }),
        400,
        'spamlist.term',
      );
    }
    expectError(
      await api('/v2/spamlists.json', { method: 'POST', key: admin, body: { term: 'ok.example' } }),
      400,
      'spamlist.type',
    );
    expectError(
      await api('/v2/spamlists.json', { method: 'POST', key: admin, body: { term: 'ok.example', type: 'greylist' } }),
      400,
      'spamlist.type',
    );
    expect(
      await rows("SELECT term FROM spam_lists WHERE installation_id = $1 AND term = 'ok.example'", [site.id]),
    ).toEqual([]);
  });

  it('is one per term, whatever the case or the list (409)', async () => {
    await api('/v2/spamlists.json', {
      method: 'POST',
      key: admin,
      body: { term: 'once@dup.example', type: 'blacklist' },
    });
    expectError(
      await api('/v2/spamlists.json', {
        method: 'POST',
        key: admin,
        body: { term: 'ONCE@dup.example', type: 'whitelist' },
      }),
      409,
      'spamlist.term',
    );
  });

  it('moves between lists with PUT, and is managed by admins only', async () => {
    const created = await api('/v2/spamlists.json', {
      method: 'POST',
      key: admin,
      body: { term: 'move.example', type: 'blacklist' },
    });
    const moved = await api(`/v2/spamlists/${created.body.spamlist.id}.json`, {
      method: 'PUT',
      key: admin,
      body: { spamlist: { type: 'whitelist' } },
    });
    expect(moved.body.spamlist).toMatchObject({ term: 'move.example', type: 'whitelist' });
    expectError(
      await api('/v2/spamlists.json', {
        method: 'POST',
        key: site.users.agent.apiKey,
        body: { term: 'agent.example', type: 'blacklist' },
      }),
      403,
    );
    expect((await api('/v2/spamlists.json', { key: site.users.agent.apiKey })).status).toBe(200);
  });
});
