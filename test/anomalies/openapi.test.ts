import { describe, expect, it } from 'vitest';
import { api } from '../support/api';

describe('the OpenAPI document', () => {
  it('lists the anomaly operations of part 4 and no others', async () => {
    const { paths } = (await api('/v2/openapi.json')).body;
    expect(Object.keys(paths['/v2/anomalies.json'])).toEqual(['get']);
    expect(Object.keys(paths['/v2/anomalies/{id}.json'])).toEqual(['get']);
    expect(Object.keys(paths['/v2/anomalies/{id}/clear.json'])).toEqual(['post']);
    expect(Object.keys(paths['/v2/anomalies/clear.json'])).toEqual(['patch']);
    const clear = paths['/v2/anomalies/{id}/clear.json'].post;
    expect(clear.requestBody.required).toBe(true);
    expect(Object.keys(clear.responses)).toContain('200');
    const bulk = paths['/v2/anomalies/clear.json'].patch;
    expect(bulk.parameters.map((p: { name: string }) => p.name)).toEqual(['Idempotency-Key', 'filter']);
    expect(bulk.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/BulkOpResponse',
    });
  });
});
