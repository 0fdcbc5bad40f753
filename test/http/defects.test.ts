// Defects found from outside, each on every route it could reach: a body nested thousands deep,
// a path id with a leading zero, and unlinking an entry that is not linked.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { DEV_ROOM_WEBHOOK_SECRET } from '../../scripts/worker-vars';
import { signPayload } from '../../src/lib/webhook-signature';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';

let site: SeededInstallation;
let owner: string;

beforeAll(async () => {
  site = await newInstallation('defects');
  owner = site.users.owner.apiKey;
});

const MAX_DEPTH = 32;
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** Every operation that takes a JSON body, as the document lists it. */
async function jsonWriteOperations(): Promise<
  { method: string; path: string; wrapper: string | undefined; oauth: boolean }[]
> {
  const { paths } = (await api('/v2/openapi.json')).body;
  const found: { method: string; path: string; wrapper: string | undefined; oauth: boolean }[] = [];
  for (const [template, methods] of Object.entries(paths) as [string, Record<string, any>][]) {
    for (const [method, operation] of Object.entries(methods)) {
      const schema = operation.requestBody?.content?.['application/json']?.schema;
      if (!schema) continue;
      // A record body is `anyOf: [{"<wrapper>": ...}, bare]`: errors name `<wrapper>.<property>`.
      const wrapper = schema.anyOf?.[0]?.required?.[0] as string | undefined;
      // the OAuth endpoints answer as RFC 6749 words it (docs/oauth.md)
      const oauth =
        operation.responses?.['400']?.content?.['application/json']?.schema?.$ref === '#/components/schemas/OAuthError';
      found.push({ method: method.toUpperCase(), path: template.replace(/\{\w+\}/g, '1'), wrapper, oauth });
    }
  }
  return found;
}

async function send(method: string, path: string, text: string) {
  const headers: Record<string, string> = {};
  if (path === '/v2/conversationmessages/webhooks.json') {
    const timestamp = Math.floor(Date.now() / 1000);
    headers['x-desk-timestamp'] = String(timestamp);
    headers['x-desk-signature'] = await signPayload(DEV_ROOM_WEBHOOK_SECRET, timestamp, text);
  }
  return api(path, { method, key: owner, body: text, headers });
}

describe('a body nested thousands deep', () => {
  it('is a 400 naming the property on every route that takes a JSON body, never a 500', async () => {
    const operations = await jsonWriteOperations();
    expect(operations.length).toBeGreaterThan(25);
    const body = `{"name": ${nested(10_000)}}`;
    expect(body.length).toBeGreaterThan(20_000);
    for (const { method, path, wrapper, oauth } of operations) {
      const response = await send(method, path, body);
      if (oauth) {
        expect(response.status, `${method} ${path}`).toBe(400);
        expect(response.body).toEqual({
          error: 'invalid_request',
          error_description: expect.stringMatching(new RegExp(`name: is nested more than ${MAX_DEPTH} levels deep`)),
        });
        continue;
      }
      const error = expectError(
        response,
        400,
        wrapper ? `${wrapper}.name` : 'name',
        new RegExp(`nested more than ${MAX_DEPTH} levels deep`),
      );
      expect(error.code, `${method} ${path}`).toBe('invalid');
    }
  }, 60_000);

  it('is refused from the bound on, the same on every run; below it the body is read as any other', async () => {
    const path = '/v2/companies.json';
    // The record is level 1 and each array inside `name` one more: 31 arrays make 32 levels.
    const within = await send('POST', path, `{"name": ${nested(MAX_DEPTH - 1)}}`);
    expectError(within, 400, 'company.name', /expected string/);
    const past = await send('POST', path, `{"name": ${nested(MAX_DEPTH)}}`);
    expectError(past, 400, 'company.name', /nested more than 32 levels deep/);
    const wrapped = await send('POST', path, `{"company": {"description": ${nested(MAX_DEPTH)}}}`);
    expectError(wrapped, 400, 'company.description', /nested more than 32 levels deep/);
    // Objects count as arrays do.
    const objects = await send('POST', path, `{"name": "Deep", "domains": [${'{"a":'.repeat(40)}1${'}'.repeat(40)}]}`);
    expectError(objects, 400, /^company\.domains/, /nested more than 32 levels deep/);
  });

  it('is refused in a filter too', async () => {
    const filter = `{"$or": [${'{"$and": ['.repeat(200)}{"name": "x"}${']}'.repeat(200)}]}`;
    expectError(await api('/v2/companies.json', { key: owner, query: { filter } }), 400, 'filter');
  });
});

describe('a path id with a leading zero', () => {
  it('is a 400 naming it, like any other malformed id, so that one record has one address', async () => {
    const [app] = await rows<{ id: number }>(`SELECT id FROM apps WHERE state = 'active' ORDER BY id LIMIT 1`);
    expect((await api(`/v2/apps/${app!.id}.json`, { key: owner })).status).toBe(200);
    expectError(await api(`/v2/apps/0${app!.id}.json`, { key: owner }), 400, 'id', /leading zeros/);
    expectError(await api(`/v2/apps/00${app!.id}/install.json`, { method: 'POST', key: owner }), 400, 'id');
    expectError(
      await api('/v2/companies/007.json', { method: 'PATCH', key: owner, body: { name: 'Bond' } }),
      400,
      'id',
    );
    expectError(await api('/v2/companies/01.json', { method: 'DELETE', key: owner }), 400, 'id');
    expectError(await api('/v2/backgroundjobs/01/1/5.json', { method: 'DELETE', key: owner }), 400, 'type');
    expectError(await api('/v2/backgroundjobs/1/01/5.json', { method: 'DELETE', key: owner }), 400, 'action');
    expectError(
      await api('/v2/apps/1/settings/01.json', { method: 'PUT', key: owner, body: { value: 'x' } }),
      400,
      'id',
    );
  });

  it('and "0", a sign, a fraction, an exponent or letters are the same 400', async () => {
    for (const id of ['0', '-1', '+1', '1.0', '1e3', 'abc', '12abc', '2147483648']) {
      expectError(await api(`/v2/companies/${id}.json`, { key: owner }), 400, 'id');
    }
  });
});

describe('unlinking an entry that is not linked', () => {
  async function file(name: string) {
    const [row] = await rows<{ id: number }>(
      `INSERT INTO files (installation_id, name, content_type, size, url, confirmed_at) VALUES ($1, $2, 'text/plain', 1, 'https://files.test/' || $2, now()) RETURNING id`,
      [site.id, name],
    );
    return row!.id;
  }

  it('is a 400 naming the entry, for every many-to-many relation, and changes nothing', async () => {
    const [customer] = await rows<{ id: number }>(
      `INSERT INTO customers (installation_id, first_name, email) VALUES ($1, 'Lone', 'lone@defects.test') RETURNING id`,
      [site.id],
    );
    const company = (await api('/v2/companies.json', { method: 'POST', key: owner, body: { name: 'Unlinked Co' } }))
      .body.company;
    expectError(
      await api(`/v2/companies/${company.id}.json`, {
        method: 'PATCH',
        key: owner,
        body: { description: 'changed', customers: [{ id: customer!.id, delete: true }] },
      }),
      400,
      'company.customers[0].id',
      /is not linked/,
    );

    const [linked, stranger] = [await file('linked.txt'), await file('stranger.txt')];
    const canned = (
      await api('/v2/cannedresponses.json', {
        method: 'POST',
        key: owner,
        body: { name: 'Canned', reply: 'Hi', files: [{ id: linked }] },
      })
    ).body.cannedresponse;
    expectError(
      await api(`/v2/cannedresponses/${canned.id}.json`, {
        method: 'PATCH',
        key: owner,
        body: { files: [{ id: linked }, { id: stranger, delete: true }] },
      }),
      400,
      'cannedresponse.files[1].id',
      /is not linked/,
    );
    const [filesLeft] = await rows<{ n: number }>(
      'SELECT count(*)::int AS n FROM canned_response_files WHERE canned_response_id = $1',
      [canned.id],
    );
    expect(filesLeft!.n).toBe(1);

    const [helpdoc] = await rows<{ id: number }>(
      `INSERT INTO helpdocs (installation_id, name, url) VALUES ($1, 'Docs', 'https://docs.test') RETURNING id`,
      [site.id],
    );
    const form = (await api('/v2/contactforms.json', { method: 'POST', key: owner, body: { name: 'Form' } })).body
      .contactform;
    expectError(
      await api(`/v2/contactforms/${form.id}.json`, {
        method: 'PATCH',
        key: owner,
        body: { helpdocs: [{ id: helpdoc!.id, meta: { delete: true } }] },
      }),
      400,
      'contactform.helpdocs[0].id',
      /is not linked/,
    );

    // The refused PATCH sent a description: neither it nor the name changed.
    const after = await rows<{ name: string; description: string | null }>(
      'SELECT name, description FROM companies WHERE id = $1',
      [company.id],
    );
    expect(after).toEqual([{ name: 'Unlinked Co', description: null }]);
  });
});
