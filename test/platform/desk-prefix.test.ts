// The platform's address layout: its clients (the Go SDK's and MCP server's default base, its
// request samples) call `https://<site>/desk/api/v2/...`. Every `/v2/...` operation answers there
// too, the same answers; `/health`, `/oauth/...` and `/.well-known/...` stay where they are.
import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api, type ApiResponse } from '../support/api';
import { checkAnswer } from '../support/contract';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';

const PLATFORM = '/desk/api';

let site: SeededInstallation;
let owner: string;

beforeAll(async () => {
  site = await newInstallation('deskprefix');
  owner = site.users.owner.apiKey;
});

/** What two answers share when they are the same answer: status, body, content type (the request id and rate-limit counts differ by nature). */
/** A body as it reads apart from the request's own id (an error body carries it). */
const withoutRequestId = (body: unknown) =>
  body && typeof body === 'object' ? { ...body, requestId: undefined } : body;

function sameAnswer(platform: ApiResponse, own: ApiResponse): void {
  expect(platform.status, platform.text).toBe(own.status);
  expect(withoutRequestId(platform.body)).toEqual(withoutRequestId(own.body));
  expect(platform.headers.get('content-type')).toBe(own.headers.get('content-type'));
}

/** The same request at both addresses, the platform's first. */
async function both(path: string, request: Parameters<typeof api>[1] = {}): Promise<[ApiResponse, ApiResponse]> {
  const platform = await api(PLATFORM + path, request);
  const own = await api(path, request);
  return [platform, own];
}

describe('every /v2 operation under /desk/api/v2', () => {
  it("answers a list and a get as at /v2 (the SDK's includes=all)", async () => {
    const created = await api('/v2/companies.json', {
      method: 'POST',
      key: owner,
      body: { company: { name: 'Prefix Co', domains: [{ name: 'prefix.test' }] } },
    });
    const id = created.body.company.id;
    sameAnswer(
      ...(await both('/v2/companies.json', {
        key: owner,
        query: { filter: { name: { $eq: 'Prefix Co' } }, orderBy: 'createdAt', orderMode: 'desc' },
      })),
    );
    const [platform, own] = await both(`/v2/companies/${id}.json`, { key: owner, query: { includes: 'all' } });
    sameAnswer(platform, own);
    expect(platform.body.company).toMatchObject({ id, name: 'Prefix Co' });
  });

  it("creates through the platform's address, the record written as by /v2", async () => {
    const created = await api(`${PLATFORM}/v2/companies.json`, {
      method: 'POST',
      key: owner,
      body: { company: { name: 'Made At Desk', industry: 'Tools' } },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.company.id;
    expect(await rows('SELECT name, industry, installation_id FROM companies WHERE id = $1', [id])).toEqual([
      { name: 'Made At Desk', industry: 'Tools', installation_id: site.id },
    ]);
    sameAnswer(created, { ...created, body: (await api(`/v2/companies/${id}.json`, { key: owner })).body });
  });

  it('runs a bulk update by filter as at /v2', async () => {
    for (const name of ['Bulk Desk A', 'Bulk Desk B'])
      await api('/v2/companies.json', { method: 'POST', key: owner, body: { company: { name } } });
    const filter = { name: { $contains: 'Bulk Desk' } };
    const updated = await api(`${PLATFORM}/v2/companies/update.json`, {
      method: 'PATCH',
      key: owner,
      query: { filter },
      body: { company: { industry: 'Bulk' } },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(
      (
        await rows<{ industry: string }>(
          "SELECT industry FROM companies WHERE installation_id = $1 AND name LIKE 'Bulk Desk%'",
          [site.id],
        )
      ).map((r) => r.industry),
    ).toEqual(['Bulk', 'Bulk']);
    const again = await api('/v2/companies/update.json', {
      method: 'PATCH',
      key: owner,
      query: { filter },
      body: { company: { industry: 'Bulk' } },
    });
    expect(updated.body).toEqual(again.body);
  });

  it('answers the same errors: not found, a malformed id, a bad filter name, no credential', async () => {
    const [missingP, missing] = await both('/v2/companies/999999.json', { key: owner });
    sameAnswer(missingP, missing);
    expectError(missingP, 404);
    const [malformedP, malformed] = await both('/v2/companies/abc.json', { key: owner });
    sameAnswer(malformedP, malformed);
    expectError(malformedP, 400, 'id');
    const [badP, bad] = await both('/v2/companies.json', { key: owner, query: { orderBy: 'nmae' } });
    sameAnswer(badP, bad);
    expectError(badP, 400, 'orderBy');
    const [anonP, anon] = await both('/v2/companies.json');
    sameAnswer(anonP, anon);
    expect(anonP.status).toBe(401);
    const [noRouteP, noRoute] = await both('/v2/nothing-here.json', { key: owner });
    expect(noRouteP.status).toBe(404);
    expect(withoutRequestId(noRouteP.body)).toEqual(withoutRequestId(noRoute.body));
  });

  it('serves the public help centre without a credential, CORS and all', async () => {
    const subdomain = `desk-prefix-${site.id}`;
    const made = await api('/v2/helpdocssites.json', {
      method: 'POST',
      key: owner,
      body: { helpdocssite: { name: 'Prefix Help', subdomain, publicSiteEnabled: true } },
    });
    expect(made.status, made.text).toBe(201);
    const [platform, own] = await both(`/v2/helpdocs/${subdomain}.json`);
    sameAnswer(platform, own);
    expect(platform.body.helpdocssite).toMatchObject({ name: 'Prefix Help', subdomain });
    expect(platform.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('shares one rate-limit count and one idempotency key store with /v2', async () => {
    const first = await api('/v2/me.json', { key: owner });
    const second = await api(`${PLATFORM}/v2/me.json`, { key: owner });
    expect(second.headers.get('x-rate-limit-limit')).toBe(first.headers.get('x-rate-limit-limit'));
    expect(Number(second.headers.get('x-rate-limit-remaining'))).toBeLessThan(
      Number(first.headers.get('x-rate-limit-remaining')),
    );
    const key = crypto.randomUUID();
    const body = { company: { name: `Idempotent Desk ${key.slice(0, 8)}` } };
    const made = await api(`${PLATFORM}/v2/companies.json`, {
      method: 'POST',
      key: owner,
      headers: { 'idempotency-key': key },
      body,
    });
    expect(made.status, made.text).toBe(201);
    const replayed = await api('/v2/companies.json', {
      method: 'POST',
      key: owner,
      headers: { 'idempotency-key': key },
      body,
    });
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(made.body);
    expect(
      await rows('SELECT id FROM companies WHERE installation_id = $1 AND name = $2', [site.id, body.company.name]),
    ).toHaveLength(1);
  });

  it("answers the widget's CORS preflight for starting a chat as at /v2", async () => {
    const preflight = (path: string) =>
      fetch(inject('workerUrl') + path, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://shop.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      });
    const [platform, own] = [
      await preflight(`${PLATFORM}/v2/conversations.json`),
      await preflight('/v2/conversations.json'),
    ];
    expect(platform.status).toBe(own.status);
    for (const header of ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-max-age'])
      expect(platform.headers.get(header), header).toBe(own.headers.get(header));
    expect(platform.headers.get('access-control-allow-origin')).toBe('*');
  });

  it("takes the doubled slash of one of the platform's samples (`.teamwork.com//desk/api/v2/...`)", async () => {
    const sent = await fetch(`${inject('workerUrl')}//desk/api/v2/me.json`, {
      headers: { authorization: `Bearer ${owner}` },
    });
    // the document declares the operation at the one-slash address; the doubled slash is a leniency
    const answer = await checkAnswer('GET', `${inject('workerUrl')}/desk/api/v2/me.json`, sent);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.user.email).toBe((await api('/v2/me.json', { key: owner })).body.user.email);
  });

  it("declares the platform's base once in the document: a second server, for the /v2 operations only", async () => {
    const { body: doc } = await api(`${PLATFORM}/v2/openapi.json`);
    expect(doc.servers.map((s: { url: string }) => s.url)).toEqual(['/', PLATFORM]);
    expect(Object.keys(doc.paths).some((path) => path.startsWith(PLATFORM))).toBe(false);
    expect(doc.paths['/health'].get.servers).toEqual([{ url: '/' }]);
    expect(doc.paths['/oauth/token'].post.servers).toEqual([{ url: '/' }]);
    expect(doc.paths['/v2/companies.json'].get.servers).toBeUndefined();
  });
});

describe("outside /v2: not under the platform's base", () => {
  it('keeps /health, /oauth/... and /.well-known/... at their own addresses only', async () => {
    expect((await api('/health')).status).toBe(200);
    for (const path of ['/health', '/oauth/userinfo', '/.well-known/oauth-authorization-server', '/v2']) {
      const answer = await api(PLATFORM + path, { key: owner });
      expect(answer.status, path).toBe(404);
    }
  });
});
