// Every answer carries a request id, and every request leaves one structured log line with what
// an operator needs (route, status, duration, database round trips) and nothing a client sent.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation } from '../support/db';
import { awaitLogLines } from '../support/logs';

let site: SeededInstallation;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

beforeAll(async () => {
  site = await newInstallation('request-log');
});

describe('X-Request-Id', () => {
  it('is generated for a request without one, on every kind of answer', async () => {
    const answers = [
      await api('/v2/companies.json', { key: site.users.agent.apiKey }),
      await api('/v2/companies.json'),
      await api('/v2/companies/999999.json', { key: site.users.agent.apiKey }),
      await api('/v2/nothing-here.json'),
      await api('/health'),
      await api('/v2/openapi.json'),
    ];
    const ids = answers.map((answer) => answer.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('is the one the request sent, when it is sane', async () => {
    for (const sent of ['abc-123', 'trace:7f3a/span.1', 'x'.repeat(128)]) {
      const answer = await api('/v2/companies.json', {
        key: site.users.agent.apiKey,
        headers: { 'x-request-id': sent },
      });
      expect(answer.headers.get('x-request-id')).toBe(sent);
    }
  });

  it('is replaced when what the request sent is not sane: too long, spaces, quotes, control characters', async () => {
    for (const sent of ['x'.repeat(129), 'has space', 'quote"d', "it's", 'a\tb', '<script>']) {
      const answer = await api('/v2/companies.json', {
        key: site.users.agent.apiKey,
        headers: { 'x-request-id': sent },
      });
      expect(answer.headers.get('x-request-id'), sent).toMatch(UUID);
    }
  });
});

describe('the log line of a request', () => {
  it('says who, which route, what status, how long and how many database round trips', async () => {
    const requestId = `log-${Math.random().toString(36).slice(2)}`;
    const created = await api('/v2/companies.json', {
      method: 'POST',
      key: site.users.agent.apiKey,
      headers: { 'x-request-id': requestId },
      body: { company: { name: 'Logged Co', note: 'a secret note' } },
    });
    expect(created.status).toBe(201);
    const [line] = await awaitLogLines({ requestId });
    expect(line).toMatchObject({
      level: 'info',
      message: 'request',
      requestId,
      installationId: site.id,
      method: 'POST',
      route: '/v2/companies.json',
      status: 201,
    });
    expect(line!.durationMs).toEqual(expect.any(Number));
    expect(line!.dbRoundTrips).toBeGreaterThanOrEqual(1);
    // Nothing the client sent beyond the id: no credential, no body.
    const text = JSON.stringify(line);
    expect(text).not.toContain(site.users.agent.apiKey);
    expect(text).not.toContain('a secret note');
    expect(text).not.toContain('Logged Co');
  });

  it('names the route pattern, not the path, and the status of a refusal', async () => {
    const requestId = `log-${Math.random().toString(36).slice(2)}`;
    await api('/v2/companies/987654.json', { key: site.users.agent.apiKey, headers: { 'x-request-id': requestId } });
    const [line] = await awaitLogLines({ requestId });
    expect(line).toMatchObject({ route: '/v2/companies/{id}.json', status: 404, installationId: site.id });
  });

  it('is written for a request without a credential too, naming no installation', async () => {
    const requestId = `log-${Math.random().toString(36).slice(2)}`;
    await api('/v2/companies.json', { headers: { 'x-request-id': requestId, authorization: 'Bearer hd_not_a_key' } });
    const [line] = await awaitLogLines({ requestId });
    expect(line).toMatchObject({ status: 401, installationId: null, route: '/v2/companies.json' });
    expect(JSON.stringify(line)).not.toContain('hd_not_a_key');
  });

  it('counts one round trip for a single record read, whatever includes it asks for', async () => {
    const created = await api('/v2/companies.json', {
      method: 'POST',
      key: site.users.agent.apiKey,
      body: { name: 'Counted Co', domains: [{ name: 'counted.test' }] },
    });
    expect(created.status, created.text).toBe(201);
    for (const includes of ['', 'domains', 'all']) {
      const requestId = `log-${Math.random().toString(36).slice(2)}`;
      const read = await api(`/v2/companies/${created.body.company.id}.json`, {
        key: site.users.agent.apiKey,
        headers: { 'x-request-id': requestId },
        query: includes ? { includes } : {},
      });
      expect(read.status, read.text).toBe(200);
      const [line] = await awaitLogLines({ requestId });
      // The credential is remembered from the create: the read is one statement.
      expect(line!.dbRoundTrips, `includes=${includes}`).toBe(1);
    }
  });
});
