// PATCH /v2/codetemplates/{id}.json: upserts a code template's one sentiment row and answers it
// as a SentimentAPIBody. Code templates have no endpoint of their own yet: rows are inserted here.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api, type ApiRequest } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { expectIgnored } from '../support/ignored';

let site: SeededInstallation;
let other: SeededInstallation;
let key: string;
const ids = { template: 0, deletedTemplate: 0, otherTemplate: 0 };

const path = (id: number | string = ids.template) => `/v2/codetemplates/${id}.json`;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function newTemplate(installationId = site.id, state = 'active'): Promise<number> {
  const [row] = await rows<{ id: number }>(
    `INSERT INTO code_templates (installation_id, name, body, state) VALUES ($1, 'Template', 'Hi {{name}}', $2) RETURNING id`,
    [installationId, state],
  );
  return row!.id;
}

async function sentimentRows(templateId: number) {
  return rows(
    `SELECT id, installation_id, tone, threshold, enabled, state, created_by, updated_by, updated_at::text FROM code_template_sentiments WHERE code_template_id = $1`,
    [templateId],
  );
}

async function snapshot() {
  return rows(`SELECT to_jsonb(s) AS row FROM code_template_sentiments s WHERE installation_id = ANY($1) ORDER BY id`, [
    [site.id, other.id],
  ]);
}

async function rejects(target: string, request: ApiRequest, status: number, source: string | null) {
  const before = await snapshot();
  const response = await api(target, { key, method: 'PATCH', ...request });
  expectError(response, status, source);
  expect(await snapshot()).toEqual(before);
}

beforeAll(async () => {
  site = await newInstallation('sentiment');
  other = await newInstallation('sentiment-other');
  key = site.users.agent.apiKey;
  ids.template = await newTemplate();
  ids.deletedTemplate = await newTemplate(site.id, 'deleted');
  ids.otherTemplate = await newTemplate(other.id);
  // The fixture template already has its sentiment row, so bad input can be checked against both paths.
  const response = await api(path(), { method: 'PATCH', key, body: { sentiment: { tone: 'negative' } } });
  expect(response.status, response.text).toBe(200);
});

describe('the first PATCH creates the sentiment row', () => {
  it('answers 200 with the SentimentAPIBody: defaults merged with the body', async () => {
    const template = await newTemplate();
    const response = await api(path(template), { method: 'PATCH', key, body: { sentiment: { tone: 'positive' } } });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['included', 'sentiment']);
    expect(response.body.included).toEqual({});
    const sentiment = response.body.sentiment;
    expect(sentiment).toEqual({
      id: expect.any(Number),
      type: 'sentiments',
      codeTemplate: { id: template, type: 'codetemplates' },
      tone: 'positive',
      threshold: 0.5,
      enabled: true,
      state: 'active',
      createdAt: expect.stringMatching(ISO),
      createdBy: { id: site.users.agent.id, type: 'users' },
      updatedAt: expect.stringMatching(ISO),
      updatedBy: { id: site.users.agent.id, type: 'users' },
    });
    expect(await sentimentRows(template)).toEqual([
      expect.objectContaining({
        id: sentiment.id,
        installation_id: site.id,
        tone: 'positive',
        threshold: 0.5,
        enabled: true,
        created_by: site.users.agent.id,
      }),
    ]);
  });

  it('accepts an empty body: every property at its default', async () => {
    const template = await newTemplate();
    const response = await api(path(template), { method: 'PATCH', key, body: {} });
    expect(response.status, response.text).toBe(200);
    expect(response.body.sentiment).toMatchObject({ tone: 'neutral', threshold: 0.5, enabled: true });
  });

  it('accepts a bare body with every property', async () => {
    const template = await newTemplate();
    const response = await api(path(template), {
      method: 'PATCH',
      key,
      body: { tone: 'negative', threshold: 0.85, enabled: false },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.sentiment).toMatchObject({ tone: 'negative', threshold: 0.85, enabled: false });
  });

  it('creates one row only, even when first PATCHes race', async () => {
    const template = await newTemplate();
    const answers = await Promise.all(
      [0.1, 0.2, 0.3, 0.4].map((threshold) => api(path(template), { method: 'PATCH', key, body: { threshold } })),
    );
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    expect(new Set(answers.map((a) => a.body.sentiment.id)).size).toBe(1);
    expect(await sentimentRows(template)).toHaveLength(1);
  });
});

describe('later PATCHes change exactly the properties sent', () => {
  it('keeps the row and the properties not sent', async () => {
    const template = await newTemplate();
    const first = await api(path(template), {
      method: 'PATCH',
      key,
      body: { sentiment: { tone: 'negative', threshold: 0.9 } },
    });
    const second = await api(path(template), {
      method: 'PATCH',
      key: site.users.admin.apiKey,
      body: { sentiment: { enabled: false } },
    });
    expect(second.status, second.text).toBe(200);
    expect(second.body.sentiment).toMatchObject({
      id: first.body.sentiment.id,
      tone: 'negative',
      threshold: 0.9,
      enabled: false,
      createdBy: { id: site.users.agent.id, type: 'users' },
      updatedBy: { id: site.users.admin.id, type: 'users' },
    });
    const third = await api(path(template), { method: 'PATCH', key, body: { threshold: 0 } });
    expect(third.body.sentiment).toMatchObject({ tone: 'negative', threshold: 0, enabled: false });
    // Below what a 4-byte real holds: kept to 6 decimals rather than a database error.
    const tiny = await api(path(template), { method: 'PATCH', key, body: { threshold: 1e-50 } });
    expect(tiny.status, tiny.text).toBe(200);
    expect(tiny.body.sentiment.threshold).toBe(0);
    const precise = await api(path(template), { method: 'PATCH', key, body: { threshold: 0.123456789 } });
    expect(precise.body.sentiment.threshold).toBe(0.123457);
    expect(await sentimentRows(template)).toHaveLength(1);
  });

  it('accepts the whole body a client read sent back, with included and meta', async () => {
    const read = await api(path(), { method: 'PATCH', key, body: {} });
    const sentBack = { ...read.body, sentiment: { ...read.body.sentiment, threshold: 0.25 }, meta: {} };
    const response = await api(path(), { method: 'PATCH', key, body: sentBack });
    expect(response.status, response.text).toBe(200);
    expect(response.body.sentiment).toMatchObject({
      id: read.body.sentiment.id,
      threshold: 0.25,
      tone: read.body.sentiment.tone,
    });
    const bare = await api(path(), {
      method: 'PATCH',
      key,
      body: { ...read.body.sentiment, codeTemplate: ids.template, threshold: 0.3 },
    });
    expect(bare.status, bare.text).toBe(200);
  });

  it('accepts PUT with the meaning of PATCH', async () => {
    const response = await api(path(), { method: 'PUT', key, body: { sentiment: { threshold: 0.6 } } });
    expect(response.status, response.text).toBe(200);
    expect(response.body.sentiment.threshold).toBe(0.6);
  });
});

describe('bad input changes nothing', () => {
  it("answers 404 for an absent, a deleted or another installation's code template, and creates no row", async () => {
    for (const id of [987654321, ids.deletedTemplate, ids.otherTemplate]) {
      await rejects(path(id), { body: { tone: 'positive' } }, 404, 'id');
    }
    expect(await sentimentRows(ids.otherTemplate)).toEqual([]);
    expect(await sentimentRows(ids.deletedTemplate)).toEqual([]);
  });

  it('answers 400 naming sentiment.threshold for a threshold out of range or not a number', async () => {
    for (const threshold of [1.5, -0.1, 2, '0.5', null, true]) {
      await rejects(path(), { body: { sentiment: { threshold } } }, 400, 'sentiment.threshold');
    }
    const template = await newTemplate();
    await rejects(path(template), { body: { threshold: 1.01 } }, 400, 'sentiment.threshold');
    expect(await sentimentRows(template)).toEqual([]);
  });

  const wrongTypes: [string, Record<string, unknown>, string][] = [
    ["tone: 'angry'", { tone: 'angry' }, 'sentiment.tone'],
    ['tone: null', { tone: null }, 'sentiment.tone'],
    ["enabled: 'yes'", { enabled: 'yes' }, 'sentiment.enabled'],
    ['enabled: 1', { enabled: 1 }, 'sentiment.enabled'],
    ["codeTemplate: 'x'", { codeTemplate: 'x' }, 'sentiment.codeTemplate'],
    ['codeTemplate of the wrong type', { codeTemplate: { id: 1, type: 'companies' } }, 'sentiment.codeTemplate'],
  ];
  for (const [what, properties, source] of wrongTypes) {
    it(`answers 400 naming ${source} for ${what}`, async () => {
      await rejects(path(), { body: { sentiment: properties } }, 400, source);
    });
  }

  it('answers 400 naming sentiment.codeTemplate when it is not the template of the path', async () => {
    await rejects(
      path(),
      { body: { sentiment: { codeTemplate: { id: ids.otherTemplate, type: 'codetemplates' }, tone: 'positive' } } },
      400,
      'sentiment.codeTemplate',
    );
  });

  it('ignores an unknown property, wrapped or bare, or beside the wrapper, naming it in X-Ignored-Properties; nothing of it is stored', async () => {
    const template = await newTemplate();
    const patch = (body: unknown) => api(path(template), { method: 'PATCH', key, body });
    expectIgnored(await patch({ sentiment: { tone: 'positive', colour: 'crimson' } }), ['sentiment.colour']);
    expectIgnored(await patch({ score: 0.4 }), ['sentiment.score']);
    expectIgnored(await patch({ sentiment: { tone: 'positive' }, extra: {} }), ['extra']);
    expectIgnored(await patch({ threshold: 0.5, name: 'not a sentiment property' }), ['sentiment.name']);
    expect(JSON.stringify(await sentimentRows(template))).not.toMatch(/colour|crimson|extra|not a sentiment property/);
  });

  const bodies: [string, string, string][] = [
    ['malformed JSON', '{"sentiment": {"tone": "positive",}', 'body'],
    ['an empty body', '', 'body'],
    ['a JSON array', '[{"tone": "positive"}]', 'body'],
    ['a wrapper holding a string', '{"sentiment": "positive"}', 'sentiment'],
  ];
  for (const [what, text, source] of bodies) {
    it(`answers 400 to ${what}`, async () => {
      await rejects(path(), { body: text, headers: { 'content-type': 'application/json' } }, 400, source);
    });
  }

  it('answers 415 to a body that is not JSON', async () => {
    await rejects(path(), { body: 'tone=positive', headers: { 'content-type': 'text/plain' } }, 415, 'body');
  });

  it('answers 400 naming id for a path id that is not a positive integer', async () => {
    await rejects(path('abc'), { body: { tone: 'positive' } }, 400, 'id');
    await rejects(path(0), { body: { tone: 'positive' } }, 400, 'id');
  });

  it('answers 400 to includes: a sentiment has none', async () => {
    await rejects(`${path()}?includes=users`, { body: { tone: 'positive' } }, 400, 'includes');
  });

  it('answers 403 to a collaborator, and changes nothing', async () => {
    await rejects(path(), { key: site.users.collaborator.apiKey, body: { tone: 'positive' } }, 403, null);
    await rejects(
      path(),
      { method: 'PUT', key: site.users.collaborator.apiKey, body: { tone: 'positive' } },
      403,
      null,
    );
  });

  it('answers 401 without a credential', async () => {
    expectError(await api(path(), { method: 'PATCH', body: { tone: 'positive' } }), 401, null);
  });
});

describe('code templates have no other endpoint here', () => {
  it('answers 404 to GET and DELETE of a code template', async () => {
    expect((await api(path(), { key })).status).toBe(404);
    expect((await api(path(), { key, method: 'DELETE' })).status).toBe(404);
    expect((await api('/v2/codetemplates.json', { key })).status).toBe(404);
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await api('/v2/openapi.json')).body;
    const patch = doc.paths['/v2/codetemplates/{id}.json'].patch;
    expect(Object.keys(patch.responses)).toEqual(expect.arrayContaining(['200', '400', '403', '404']));
    expect(doc.components.schemas.SentimentUpdate.properties.threshold).toMatchObject({ minimum: 0, maximum: 1 });
    expect(doc.components.schemas.Sentiment.properties.threshold.type).toBe('number');
  });
});
