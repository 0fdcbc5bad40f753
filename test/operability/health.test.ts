// `GET /health` while the database answers; the database cut off is in
// test/operability/database-outage.test.ts, which has a stack of its own to cut.
import { describe, expect, it } from 'vitest';
import { api } from '../support/api';

describe('GET /health', () => {
  it('answers 200 without a credential when the database answers', async () => {
    const response = await api('/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok', database: 'ok', environment: expect.any(String) });
  });
});
