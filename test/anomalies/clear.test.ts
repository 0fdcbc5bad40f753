// POST /v2/anomalies/{id}/clear.json and PATCH /v2/anomalies/clear.json?filter=...: clearing
// records who and when, is idempotent, leaves the anomaly readable, and every refusal changes nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api, type ApiRequest } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectIgnored } from '../support/ignored';
import { anomalyRows, expectError, insertAnomaly } from './fixtures';

let site: SeededInstallation;
let other: SeededInstallation;
let key: string;

beforeAll(async () => {
  site = await newInstallation('anomalies-clear');
  other = await newInstallation('anomalies-clear-other');
  key = site.users.agent.apiKey;
});

const clearPath = (id: number) => `/v2/anomalies/${id}/clear.json`;
const BULK = '/v2/anomalies/clear.json';

async function row(id: number) {
  const [found] = await rows<{
    status: string;
    cleared_at: Date | null;
    cleared_by: number | null;
    clear_note: string | null;
    updated_at: Date;
    updated_by: number | null;
  }>('SELECT status, cleared_at, cleared_by, clear_note, updated_at, updated_by FROM anomalies WHERE id = $1', [id]);
  return found!;
}

/** Sends the request, checks the status and error body, and that no anomaly of either installation changed. */
async function refused(path: string, request: ApiRequest, status: number, source: string | RegExp) {
  const before = await anomalyRows([site.id, other.id]);
  const response = await api(path, { key, ...request });
  expectError(response, status, source);
  expect(await anomalyRows([site.id, other.id])).toEqual(before);
}

describe('POST /v2/anomalies/{id}/clear.json', () => {
  it('answers 200 with the singular wrapper, the anomaly cleared by the caller, now', async () => {
    const id = await insertAnomaly(site.id, { name: 'burst' });
    const response = await api(clearPath(id), {
      method: 'POST',
      key,
      body: { anomaly: { clearNote: '  a campaign went out  ' } },
    });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['anomaly', 'included']);
    const anomaly = response.body.anomaly;
    expect(anomaly).toMatchObject({
      id,
      type: 'anomalies',
      name: 'burst',
      status: 'cleared',
      clearNote: 'a campaign went out',
      clearedBy: { id: site.users.agent.id, type: 'users' },
      updatedBy: { id: site.users.agent.id, type: 'users' },
      state: 'active',
    });
    expect(Date.now() - Date.parse(anomaly.clearedAt)).toBeLessThan(60_000);
    const stored = await row(id);
    expect(stored).toMatchObject({
      status: 'cleared',
      cleared_by: site.users.agent.id,
      clear_note: 'a campaign went out',
      updated_by: site.users.agent.id,
    });
    expect(stored.cleared_at!.toISOString()).toBe(anomaly.clearedAt);
  });

  it('takes a bare empty object: cleared with no note', async () => {
    const id = await insertAnomaly(site.id, { name: 'quiet' });
    const response = await api(clearPath(id), { method: 'POST', key, body: {} });
    expect(response.status, response.text).toBe(200);
    expect(response.body.anomaly).toMatchObject({
      status: 'cleared',
      clearNote: null,
      clearedBy: { id: site.users.agent.id },
    });
  });

  it('accepts the record a client read, sent back whole: only clearNote is read', async () => {
    const id = await insertAnomaly(site.id, { name: 'echo', userId: site.users.admin.id, details: { n: 1 } });
    const read = (await api(`/v2/anomalies/${id}.json`, { key })).body;
    const response = await api(clearPath(id), {
      method: 'POST',
      key,
      body: { ...read, anomaly: { ...read.anomaly, name: 'renamed', status: 'open', clearNote: 'seen' }, meta: {} },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.anomaly).toMatchObject({
      name: 'echo',
      status: 'cleared',
      clearNote: 'seen',
      user: { id: site.users.admin.id },
    });
  });

  it('is idempotent: clearing again keeps the first clearedAt and clearedBy, and changes nothing without a new note', async () => {
    const id = await insertAnomaly(site.id, { name: 'twice' });
    const first = await api(clearPath(id), { method: 'POST', key, body: { clearNote: 'first' } });
    const before = await row(id);
    const again = await api(clearPath(id), { method: 'POST', key: site.users.admin.apiKey, body: {} });
    expect(again.status, again.text).toBe(200);
    expect(again.body.anomaly).toEqual(first.body.anomaly);
    expect(await row(id)).toEqual(before);
    const sameNote = await api(clearPath(id), {
      method: 'POST',
      key: site.users.admin.apiKey,
      body: { clearNote: 'first' },
    });
    expect(sameNote.body.anomaly).toEqual(first.body.anomaly);
    expect(await row(id)).toEqual(before);
  });

  it('replaces the note when a clear of a cleared anomaly sends one, keeping who cleared it and when', async () => {
    const id = await insertAnomaly(site.id, {
      name: 'old',
      status: 'cleared',
      clearedAt: '2026-01-02T03:04:05.678Z',
      clearedBy: site.users.owner.id,
      clearNote: 'was known',
    });
    const response = await api(clearPath(id), { method: 'POST', key, body: { anomaly: { clearNote: 'still known' } } });
    expect(response.status, response.text).toBe(200);
    expect(response.body.anomaly).toMatchObject({
      clearedAt: '2026-01-02T03:04:05.678Z',
      clearedBy: { id: site.users.owner.id },
      clearNote: 'still known',
      updatedBy: { id: site.users.agent.id },
    });
    const removed = await api(clearPath(id), { method: 'POST', key, body: { clearNote: null } });
    expect(removed.body.anomaly).toMatchObject({ clearedAt: '2026-01-02T03:04:05.678Z', clearNote: null });
  });

  it('leaves the cleared anomaly readable, by id and in lists', async () => {
    const id = await insertAnomaly(site.id, { name: 'still here' });
    await api(clearPath(id), { method: 'POST', key, body: {} });
    expect((await api(`/v2/anomalies/${id}.json`, { key })).body.anomaly.status).toBe('cleared');
    const list = await api('/v2/anomalies.json', { key, query: { filter: { id } } });
    expect(list.body.anomalies).toHaveLength(1);
  });

  it('answers with the includes asked for', async () => {
    const id = await insertAnomaly(site.id, { name: 'with users' });
    const response = await api(`${clearPath(id)}?includes=users`, { method: 'POST', key, body: {} });
    expect(response.body.included.users.map((u: { id: number }) => u.id)).toEqual([site.users.agent.id]);
  });

  it('lets every seated role clear', async () => {
    for (const role of ['owner', 'admin', 'agent'] as const) {
      const id = await insertAnomaly(site.id, { name: `by ${role}` });
      const response = await api(clearPath(id), { method: 'POST', key: site.users[role].apiKey, body: {} });
      expect(response.status, `${role}: ${response.text}`).toBe(200);
      expect(response.body.anomaly.clearedBy.id).toBe(site.users[role].id);
    }
  });
});

describe('POST /v2/anomalies/{id}/clear.json refusals', () => {
  let id = 0;
  let deleted = 0;
  let others = 0;
  beforeAll(async () => {
    id = await insertAnomaly(site.id, { name: 'target' });
    deleted = await insertAnomaly(site.id, { name: 'deleted', state: 'deleted' });
    others = await insertAnomaly(other.id, { name: 'theirs' });
  });
  const raw = (text: string): ApiRequest => ({
    method: 'POST',
    body: text,
    headers: { 'content-type': 'application/json' },
  });

  it('400 to malformed JSON, no body, and bodies that are not an object', async () => {
    await refused(clearPath(id), raw('{"anomaly": {"clearNote": "x",}'), 400, 'body');
    await refused(clearPath(id), raw(''), 400, 'body');
    await refused(clearPath(id), raw('[]'), 400, 'body');
    await refused(clearPath(id), raw('"clear"'), 400, 'body');
    await refused(clearPath(id), raw('null'), 400, 'body');
    await refused(clearPath(id), raw('{"anomaly": "clear"}'), 400, 'anomaly');
  });

  it('400 to a clearNote of the wrong type or too long', async () => {
    await refused(clearPath(id), { method: 'POST', body: { anomaly: { clearNote: 5 } } }, 400, 'anomaly.clearNote');
    await refused(clearPath(id), { method: 'POST', body: { clearNote: ['a'] } }, 400, 'anomaly.clearNote');
    await refused(clearPath(id), { method: 'POST', body: { clearNote: 'x'.repeat(2001) } }, 400, 'anomaly.clearNote');
    await refused(clearPath(id), { method: 'POST', body: { clearNote: 'a\u0000b' } }, 400, 'anomaly.clearNote');
  });

  it('an unknown property, inside or beside the wrapper: ignored and named in X-Ignored-Properties', async () => {
    for (const [body, names] of [
      [{ anomaly: { clearNote: 'x', colour: 'red' } }, ['anomaly.colour']],
      [{ reason: 'x' }, ['anomaly.reason']],
      [{ anomaly: {}, extra: 1 }, ['extra']],
    ] as const) {
      const anomaly = await insertAnomaly(site.id, { name: 'ignoring' });
      expectIgnored(await api(clearPath(anomaly), { method: 'POST', key, body }), [...names]);
    }
    await refused(
      clearPath(id),
      { method: 'POST', body: { anomaly: { clearNote: 5, colour: 'red' } } },
      400,
      'anomaly.clearNote',
    );
  });

  it('415 to a body that is not JSON', async () => {
    await refused(
      clearPath(id),
      { method: 'POST', body: 'clearNote=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      415,
      'body',
    );
  });

  it("404 for another installation's anomaly, a deleted one and one that does not exist", async () => {
    await refused(clearPath(others), { method: 'POST', body: {} }, 404, 'id');
    await refused(clearPath(deleted), { method: 'POST', body: {} }, 404, 'id');
    await refused(clearPath(2_000_000_000), { method: 'POST', body: {} }, 404, 'id');
  });

  it('400 to an id that is not a positive integer, and to an unknown include', async () => {
    await refused('/v2/anomalies/0/clear.json', { method: 'POST', body: {} }, 400, 'id');
    await refused('/v2/anomalies/x1/clear.json', { method: 'POST', body: {} }, 400, 'id');
    await refused(`${clearPath(id)}?includes=customers`, { method: 'POST', body: {} }, 400, 'includes');
  });

  it('403 to a collaborator (no seat), 401 without a credential', async () => {
    await refused(clearPath(id), { method: 'POST', body: {}, key: site.users.collaborator.apiKey }, 403, /.*/);
    await refused(clearPath(id), { method: 'POST', body: {}, key: null }, 401, /.*/);
  });
});

describe('PATCH /v2/anomalies/clear.json', () => {
  it('clears every live anomaly the filter selects and answers the bulk result', async () => {
    const a = await insertAnomaly(site.id, { name: 'bulk spike', userId: site.users.admin.id });
    const b = await insertAnomaly(site.id, { name: 'bulk spike', userId: site.users.agent.id });
    const c = await insertAnomaly(site.id, { name: 'bulk spike', state: 'deleted' });
    const d = await insertAnomaly(site.id, { name: 'bulk other' });
    const o = await insertAnomaly(other.id, { name: 'bulk spike' });
    const response = await api(BULK, {
      method: 'PATCH',
      key,
      query: { filter: { name: 'bulk spike' } },
      body: { anomaly: { clearNote: 'one cause' } },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ affected: 2, ids: [a, b], jobId: null, dryRun: false });
    for (const id of [a, b])
      expect(await row(id)).toMatchObject({
        status: 'cleared',
        cleared_by: site.users.agent.id,
        clear_note: 'one cause',
      });
    for (const id of [c, d, o])
      expect(await row(id)).toMatchObject({ status: 'open', cleared_at: null, clear_note: null });
    const read = await api(`/v2/anomalies/${a}.json`, { key });
    expect(read.body.anomaly).toMatchObject({ status: 'cleared', clearedBy: { id: site.users.agent.id } });
  });

  it('keeps the first clearing of anomalies already cleared, and lists them among the ids', async () => {
    const cleared = await insertAnomaly(site.id, {
      name: 'bulk mixed',
      status: 'cleared',
      clearedAt: '2026-01-02T03:04:05.678Z',
      clearedBy: site.users.owner.id,
      clearNote: 'earlier',
    });
    const open = await insertAnomaly(site.id, { name: 'bulk mixed' });
    const before = await row(cleared);
    const response = await api(BULK, { method: 'PATCH', key, query: { filter: { name: 'bulk mixed' } }, body: {} });
    expect(response.body).toEqual({ affected: 2, ids: [cleared, open], jobId: null, dryRun: false });
    expect(await row(cleared)).toEqual(before);
    expect(await row(open)).toMatchObject({ status: 'cleared', cleared_by: site.users.agent.id, clear_note: null });
  });

  it('selects with any filter name of part 2, under $or too', async () => {
    const a = await insertAnomaly(site.id, { name: 'or one', userId: site.users.owner.id });
    const b = await insertAnomaly(site.id, { name: 'or two' });
    const response = await api(BULK, {
      method: 'PATCH',
      key,
      body: {},
      query: { filter: { $or: [{ $and: [{ user: site.users.owner.id }, { name: 'or one' }] }, { id: b }] } },
    });
    expect(response.body).toEqual({ affected: 2, ids: [a, b], jobId: null, dryRun: false });
  });

  it("answers an empty result when nothing matches, another installation's ids included", async () => {
    const theirs = await insertAnomaly(other.id, { name: 'not yours' });
    const response = await api(BULK, { method: 'PATCH', key, query: { filter: { id: theirs } }, body: {} });
    expect(response.body).toEqual({ affected: 0, ids: [], jobId: null, dryRun: false });
    expect(await row(theirs)).toMatchObject({ status: 'open' });
  });
});

describe('PATCH /v2/anomalies/clear.json refusals', () => {
  let id = 0;
  beforeAll(async () => {
    id = await insertAnomaly(site.id, { name: 'bulk target' });
  });
  const filter = () => ({ filter: { id } });

  it('400 without a filter, or with one selecting everything', async () => {
    await refused(BULK, { method: 'PATCH', body: {} }, 400, 'filter');
    await refused(BULK, { method: 'PATCH', body: {}, query: { filter: {} } }, 400, 'filter');
    await refused(`${BULK}?filter=`, { method: 'PATCH', body: {} }, 400, 'filter');
  });

  it('400 to a filter that does not parse, or names what part 2 does not list', async () => {
    await refused(`${BULK}?filter=${encodeURIComponent('{"id":')}`, { method: 'PATCH', body: {} }, 400, 'filter');
    await refused(BULK, { method: 'PATCH', body: {}, query: { filter: { status: 'open' } } }, 400, 'filter.status');
    await refused(BULK, { method: 'PATCH', body: {}, query: { filter: { id: { $regex: '1' } } } }, 400, 'filter.id');
  });

  it('400 to bad bodies: malformed, none, wrong type (an unknown property beside it changes nothing)', async () => {
    const raw = (text: string): ApiRequest => ({
      method: 'PATCH',
      query: filter(),
      body: text,
      headers: { 'content-type': 'application/json' },
    });
    await refused(BULK, raw('{"clearNote": }'), 400, 'body');
    await refused(BULK, raw(''), 400, 'body');
    await refused(BULK, raw('[{}]'), 400, 'body');
    await refused(
      BULK,
      { method: 'PATCH', query: filter(), body: { anomaly: { clearNote: false } } },
      400,
      'anomaly.clearNote',
    );
    await refused(
      BULK,
      { method: 'PATCH', query: filter(), body: { anomaly: { clearNote: 7, colour: 'red' } } },
      400,
      'anomaly.clearNote',
    );
  });

  it('403 to a collaborator (no seat)', async () => {
    await refused(BULK, { method: 'PATCH', query: filter(), body: {}, key: site.users.collaborator.apiKey }, 403, /.*/);
  });
});
