// The edges of the request path: how a refused query value is described, which content types
// are JSON (and that ours is the only check that answers), the webhooks' signature checked before
// the body is read, the error codes the document declares, the pmconnection's `included`, and
// the walk that finds a body's unsafe spot.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { JSON_TYPE, MAX_JSON_DEPTH, unsafeSpot } from '../../src/http/json-body';
import { api } from '../support/api';
import { newInstallation } from '../support/db';
import { expectError } from '../support/errors';

let site: SeededInstallation;

beforeAll(async () => {
  site = await newInstallation('edges');
});

describe('a query parameter of the wrong type', () => {
  it('sent twice is a 400 saying so, never "must be set"', async () => {
    for (const name of ['page', 'pageSize', 'includes', 'orderBy']) {
      const response = await api(`/v2/companies.json?${name}=1&${name}=2`, { key: site.users.agent.apiKey });
      const entry = expectError(response, 400, name);
      expect(entry.detail, response.text).toBe('must be sent once, not repeated');
    }
  });

  it('sent once and wrong is still named with its own reason', async () => {
    const response = await api('/v2/companies.json?page=0', { key: site.users.agent.apiKey });
    expect(expectError(response, 400, 'page').detail).toMatch(/whole number from 1/);
  });
});

describe('the content type of a JSON body', () => {
  const send = (type: string) =>
    api('/v2/companies.json', {
      method: 'POST',
      key: site.users.agent.apiKey,
      body: '{"company": {}}',
      headers: { 'content-type': type },
    });

  it('refuses what is not JSON, or not only JSON, with the error body naming the body', async () => {
    for (const type of [
      'application/json-seq',
      'application/json, text/plain',
      'application/jsonx',
      'application/json; charset',
      'application/json ;charset=utf-8',
      'text/json',
      'text/plain',
    ]) {
      const response = await send(type);
      const entry = expectError(response, 415, 'body');
      expect(entry.detail, type).toBe('send the body as application/json');
    }
  });

  it('takes JSON with parameters and the +json types: the body is then validated', async () => {
    for (const type of [
      'application/json',
      'Application/JSON',
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'application/merge-patch+json',
      'application/vnd.helpdesk.v-two+json',
    ]) {
      const response = await send(type);
      expectError(response, 400, 'company.name');
    }
  });

  it('agrees with the patterns, one by one', () => {
    expect(JSON_TYPE.test('application/json')).toBe(true);
    expect(JSON_TYPE.test('application/problem+json; charset=utf-8')).toBe(true);
    expect(JSON_TYPE.test('application/json-seq')).toBe(false);
    expect(JSON_TYPE.test('application/json, text/plain')).toBe(false);
    expect(JSON_TYPE.test('application/json;')).toBe(false);
  });
});

describe('POST /v2/conversationmessages/webhooks.json before the body is read', () => {
  const WEBHOOKS = '/v2/conversationmessages/webhooks.json';

  it('refuses an unsigned delivery with 401 whatever its body: not JSON, not parsable', async () => {
    for (const [type, body] of [
      ['text/plain', 'hello'],
      ['application/json', '{not json'],
      ['application/xml', '<a/>'],
    ] as const) {
      const response = await api(WEBHOOKS, { method: 'POST', body, headers: { 'content-type': type } });
      expect(expectError(response, 401).detail, type).toMatch(/X-Desk-Signature and X-Desk-Timestamp are required/);
    }
  });

  it('refuses a stale timestamp with 401 before looking at the body', async () => {
    const stale = String(Math.floor(Date.now() / 1000) - 3600);
    const response = await api(WEBHOOKS, {
      method: 'POST',
      body: 'not json at all',
      headers: { 'content-type': 'text/plain', 'x-desk-timestamp': stale, 'x-desk-signature': 'sha256=00' },
    });
    expect(expectError(response, 401).detail).toMatch(/not within 5 minutes/);
  });

  it('reads the body of a fresh one to check its signature: a signature that does not match is a 401', async () => {
    const now = String(Math.floor(Date.now() / 1000));
    const response = await api(WEBHOOKS, {
      method: 'POST',
      body: '{"conversationmessages": []}',
      headers: { 'x-desk-timestamp': now, 'x-desk-signature': `sha256=${'0'.repeat(64)}` },
    });
    expect(expectError(response, 401).detail).toMatch(/does not match/);
  });
});

describe('the document', () => {
  let doc: any;
  beforeAll(async () => {
    doc = (await api('/v2/openapi.json')).body;
  });

  it('declares the error codes the service answers, and only those', () => {
    const code = doc.components.schemas.Error.properties.errors.items.properties.code;
    expect([...code.enum].sort()).toEqual(
      [
        'badGateway',
        'conflict',
        'forbidden',
        'gatewayTimeout',
        'internal',
        'invalid',
        'notConfigured',
        'notFound',
        'paymentRequired',
        'tooLarge',
        'tooManyRequests',
        'unauthorized',
        'unavailable',
        'unprocessable',
        'unsupportedMediaType',
        'upgradeRequired',
      ].sort(),
    );
  });

  it('declares 503 on the operations that reach the database', () => {
    for (const [path, method] of [
      ['/v2/companies.json', 'get'],
      ['/v2/companies.json', 'post'],
      ['/v2/companies/{id}.json', 'patch'],
      ['/v2/conversationmessages/webhooks.json', 'post'],
    ] as const) {
      expect(doc.paths[path][method].responses['503'], `${method} ${path}`).toBeDefined();
    }
  });

  it('says the room takes the token alone, or an agent credential', () => {
    expect(doc.paths['/v2/rooms/{token}/socket'].get.security).toEqual([{}, { bearer: [] }, { basic: [] }]);
  });

  it('declares the body-less 201 of `Prefer: return=minimal` and its Preference-Applied', () => {
    const created = doc.paths['/v2/conversationmessages/webhooks.json'].post.responses['201'];
    expect(created.headers['Preference-Applied']).toMatchObject({
      schema: { type: 'string', enum: ['return=minimal'] },
    });
    expect(created.description).toMatch(/return=minimal/);
  });
});

describe('GET and PUT /v2/pmconnection.json', () => {
  it('answer one record as every record reads: with `included`, and the same properties as before', async () => {
    const put = await api('/v2/pmconnection.json', {
      method: 'PUT',
      key: site.users.admin.apiKey,
      body: { pmconnection: { baseUrl: 'https://93.184.216.34/', token: 'edge-token' } },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.included).toEqual({});
    expect(Object.keys(put.body.pmconnection).sort()).toEqual(
      [
        'baseUrl',
        'createdAt',
        'createdBy',
        'hasToken',
        'id',
        'lastSyncedAt',
        'state',
        'type',
        'updatedAt',
        'updatedBy',
      ].sort(),
    );
    expect(put.body.pmconnection).toMatchObject({
      type: 'pmconnections',
      baseUrl: 'https://93.184.216.34',
      hasToken: true,
      lastSyncedAt: null,
      state: 'active',
      createdBy: { id: site.users.admin.id, type: 'users' },
      updatedBy: { id: site.users.admin.id, type: 'users' },
    });
    expect(put.body.pmconnection.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(put.text).not.toContain('edge-token');

    const got = await api('/v2/pmconnection.json', { key: site.users.agent.apiKey });
    expect(got.status, got.text).toBe(200);
    expect(got.body).toEqual({ pmconnection: put.body.pmconnection, included: {} });
  });
});

describe("the walk that finds a body's unsafe spot", () => {
  it('names where a string holds NUL, in an array or an object, or a key does', () => {
    expect(unsafeSpot({ a: [1, { b: 'x\u0000' }] })).toEqual({ path: ['a', 1, 'b'], problem: 'nul' });
    expect(unsafeSpot({ a: { 'k\u0000': 1 } })).toEqual({ path: ['a', 'k\u0000'], problem: 'nul' });
    expect(unsafeSpot(['ok', 'no\u0000'])).toEqual({ path: [1], problem: 'nul' });
    expect(unsafeSpot({ a: [1, 'two', null, true, { b: ['c'] }] })).toBeUndefined();
  });

  it('names the first value nested too deep, in the order the body is written', () => {
    let deep: unknown = [];
    for (let level = 0; level < MAX_JSON_DEPTH; level++) deep = [deep];
    const spot = unsafeSpot({ first: 'fine', second: deep, third: 'bad\u0000' });
    expect(spot?.problem).toBe('depth');
    expect(spot?.path).toEqual(['second', ...Array(MAX_JSON_DEPTH - 1).fill(0)]);
    expect(unsafeSpot({ first: 'bad\u0000', second: deep })).toEqual({ path: ['first'], problem: 'nul' });
  });
});
