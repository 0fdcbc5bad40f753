// A client's keep-alive connection stays fit for its next request after an answer given without
// reading the request's body (a 404, a refused credential): the Worker reads the body to its end
// after answering (`src/pipeline/unread-body.ts`). Behind the static assets' router, a connection
// left with its last body unread was closed under the client's next request (9 of 400 here).
import { describe, expect, inject, it } from 'vitest';

describe('a request answered without reading its body', () => {
  it('leaves the connection usable: 400 requests with bodies to refusals, none fails', async () => {
    const failures: string[] = [];
    const statuses: Record<number, number> = {};
    for (let i = 0; i < 400; i++) {
      const method = ['POST', 'PATCH', 'PUT'][i % 3]!;
      // a company's operations refuse the key (401); no route has the other path (404)
      const path =
        i % 2 ? (method === 'POST' ? '/v2/companies.json' : '/v2/companies/5.json') : '/v2/no-such-thing.json';
      try {
        const response = await fetch(`${inject('workerUrl')}${path}`, {
          method,
          headers: { 'content-type': 'application/json', authorization: 'Bearer hd_not_a_real_key_0000000000000000' },
          body: JSON.stringify({ name: 'x'.repeat(i * 50) }),
        });
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        await response.text();
      } catch (error) {
        failures.push(`${i} ${method} ${path}: ${String((error as Error).cause ?? error)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(Object.keys(statuses).sort()).toEqual(['401', '404']);
  }, 120_000);
});
