import { describe, expect, it } from 'vitest';
import { api } from '../support/api';

describe('the OpenAPI document', () => {
  it("lists GET /v2/announcement.json with its 200 and 204, and the owner's announcements routes", async () => {
    const { paths } = (await api('/v2/openapi.json')).body;
    const current = paths['/v2/announcement.json'].get;
    expect(Object.keys(current.responses)).toEqual(expect.arrayContaining(['200', '204']));
    expect(current.responses['204'].content).toBeUndefined();
    expect(Object.keys(paths['/v2/announcements.json']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/v2/announcements/{id}.json']).sort()).toEqual(['delete', 'get', 'patch', 'put']);
  });
});
