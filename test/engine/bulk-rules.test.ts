// Bulk writes are held to the rules of single ones. A resource whose single writes run hooks and
// that offers bulk writes runs them for every selected record (each such resource's own folder
// performs the attack: timelogs, customers, tickets, triggers); one that offers none has no such
// route, so no bulk path around its rules: nothing changes.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import type { Operation, ResourceDeclaration } from '../../src/engine/types';
import { api, type ApiResponse } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { everyResource } from '../support/resources';

let site: SeededInstallation;
let guarded: ResourceDeclaration[] = [];

const offers = (resource: ResourceDeclaration, operation: Operation) =>
  !resource.operations || resource.operations.includes(operation);
/** No bulk route: the path is no route (404), or reads as a single record's with a malformed id (400 naming `id`). */
const noRoute = (answer: ApiResponse) =>
  answer.status === 404 ? expectError(answer, 404) : expectError(answer, 400, 'id');
const eventCount = async () =>
  (await rows<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE installation_id = $1', [site.id]))[0]!.n;

beforeAll(async () => {
  site = await newInstallation('bulk-rules');
  guarded = (await everyResource()).filter((r) => r.beforeWrite || r.afterWrite || r.beforeDelete || r.afterDelete);
});

describe('bulk writes of resources whose single writes have rules', () => {
  it('are routes only where they run those rules: elsewhere update.json and delete.json are no route, and nothing changes', async () => {
    expect(guarded.map((r) => r.type)).toEqual(
      expect.arrayContaining(['users', 'webhookendpoints', 'helpdocarticles', 'inboxes', 'timelogs', 'triggers']),
    );
    const before = await eventCount();
    const filter = JSON.stringify({ id: { $gt: 0 } });
    for (const resource of guarded) {
      const base = `/v2/${resource.path ?? resource.type}`;
      if (!offers(resource, 'bulkUpdate')) {
        noRoute(
          await api(`${base}/update.json`, {
            method: 'PATCH',
            key: site.users.owner.apiKey,
            query: { filter },
            body: { [resource.singular]: { name: 'rewritten' } },
          }),
        );
      }
      if (!offers(resource, 'bulkDelete')) {
        noRoute(
          await api(`${base}/delete.json`, { method: 'DELETE', key: site.users.owner.apiKey, query: { filter } }),
        );
      }
    }
    expect(await eventCount()).toBe(before);
  });
});
