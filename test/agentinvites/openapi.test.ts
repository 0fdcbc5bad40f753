import { describe, expect, it } from 'vitest';
import { api } from '../support/api';

describe('the OpenAPI document', () => {
  it("lists the agent invite operations: part 4's list and create, get, accept and decline", async () => {
    const { paths } = (await api('/v2/openapi.json')).body;
    expect(Object.keys(paths['/v2/agentinvites.json']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/v2/agentinvites/{id}.json'])).toEqual(['get']);
    expect(Object.keys(paths['/v2/agentinvites/{id}/accept.json'])).toEqual(['post']);
    expect(Object.keys(paths['/v2/agentinvites/{id}/decline.json'])).toEqual(['post']);
    const create = paths['/v2/agentinvites.json'].post;
    expect(create.requestBody.required).toBe(true);
    expect(Object.keys(create.responses)).toContain('201');
    const orderBy = paths['/v2/agentinvites.json'].get.parameters.find((p: { name: string }) => p.name === 'orderBy');
    expect(orderBy.schema.enum).toEqual([
      'createdAt',
      'createdBy',
      'deletedAt',
      'deletedBy',
      'updatedAt',
      'updatedBy',
      'state',
      'id',
      'user',
    ]);
  });
});
