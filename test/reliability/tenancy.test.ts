// The reliability suite's tenancy test: a second installation's owner, on the first one's
// records, for every operation of the document that names a record by id (read, write, delete),
// by filter on every list, and by reference in the writes that take references. Nothing of the
// first installation is answered, and (checked in SQL, every table with an installation) nothing
// of it changes.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { uploadedFile } from '../support/files';
import { claimMailDomain, verifiedMailDomain } from '../support/mail-domains';
import { send } from '../mail/support';

let theirs: SeededInstallation;
let ours: SeededInstallation;
let document: { paths: Record<string, Record<string, any>> };
/** Their own ids by the path segment that lists them (`companies`: ids `GET /v2/companies.json` answers them, and not to the other installation). */
const theirIds = new Map<string, number[]>();

/** Every table with an installation, and a digest of the first installation's rows in each. */
async function snapshot(installationId: number): Promise<Record<string, string>> {
  const tables = await rows<{ table_name: string }>(
    "SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'installation_id' ORDER BY table_name",
  );
  const digests: Record<string, string> = {};
  for (const { table_name } of tables) {
    // (idempotency keys and events are the service's bookkeeping of requests, not records)
    if (['idempotency_keys', 'events', 'event_deliveries'].includes(table_name)) continue;
    const [row] = await rows<{ digest: string }>(
      `SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS digest FROM ${table_name} t WHERE t.installation_id = $1`,
      [installationId],
    );
    digests[table_name] = row!.digest;
  }
  return digests;
}

beforeAll(async () => {
  theirs = await newInstallation('tenancy-theirs');
  ours = await newInstallation('tenancy-ours');
  const key = theirs.users.owner.apiKey;
  const post = async (path: string, body: unknown) => {
    const answer = await api(path, { method: 'POST', key, body });
    expect(answer.status, `${path}: ${answer.text}`).toBeLessThan(300);
    return answer.body;
  };
  // their records of every kind the API writes
  const company = (await post('/v2/companies.json', { name: 'Their Co', domains: [{ name: 'their.test' }] })).company
    .id;
  const customer = (
    await post('/v2/customers.json', {
      customer: { email: 'them@their.test', firstName: 'Them', companies: [{ id: company }] },
    })
  ).customer.id;
  const tag = (await post('/v2/tags.json', { name: 'theirs' })).tag.id;
  const inbox = (await post('/v2/inboxes.json', { inbox: { name: 'Their inbox', localPart: 'theirs' } })).inbox.id;
  // their own mail domain, proven, and an inbox address on it (before their webhook endpoint: no deliveries of it in flight later)
  await verifiedMailDomain(key, `${theirs.siteName}.test`);
  expect(
    (
      await api(`/v2/inboxes/${inbox}.json`, {
        method: 'PATCH',
        key,
        body: { inbox: { email: `help@${theirs.siteName}.test`, sendEmailsFrom: `help@${theirs.siteName}.test` } },
      })
    ).status,
  ).toBe(200);
  const file = await uploadedFile(key, 'their file', { filename: 'their.txt', mimeType: 'text/plain' });
  const ticket = (
    await post('/v2/tickets.json', {
      ticket: {
        subject: 'Their ticket',
        inbox,
        customer: { id: customer },
        tags: [{ id: tag }],
        message: 'Theirs',
        files: [{ id: file }],
        notifyCustomer: false,
      },
    })
  ).ticket.id;
  await post(`/v2/tickets/${ticket}/messages.json`, { message: 'A note of theirs', threadType: 'note' });
  await post('/v2/cannedresponses.json', { name: 'Their canned', reply: 'Hi' });
  await post('/v2/contactforms.json', { name: 'Their form' });
  await post('/v2/businesshours.json', { name: 'Their hours', timezone_name: 'UTC' });
  await post('/v2/spamlists.json', { spamlist: { term: 'their-spam.test', type: 'blacklist' } });
  await post('/v2/triggers.json', {
    trigger: {
      name: 'Their trigger',
      conditions: [{ field: 9, operator: 17, value: String(tag) }],
      triggeractions: [{ type: 5, value: String(tag) }],
    },
  });
  await post('/v2/slas.json', { sla: { name: 'Their SLA', slainboxes: [{ inbox: { id: inbox } }] } });
  await post('/v2/webhookendpoints.json', {
    webhookendpoint: {
      url: 'http://127.0.0.1:9/their-hook',
      token: 'their-token-0123456789',
      allInboxes: false,
      webhookendpointinboxes: [{ inbox: { id: inbox } }],
    },
  });
  await post('/v2/timelogs.json', { timeLog: { ticket: { id: ticket }, seconds: 60 } });
  await post('/v2/customfields.json', { customfield: { agentLabel: 'Their field', kind: 'text' } });

  document = (await api('/v2/openapi.json')).body;
  // their ids, by each list the document has that they can read
  for (const [path, methods] of Object.entries(document.paths)) {
    const match = /^\/v2\/([a-z]+)\.json$/.exec(path);
    if (!match || !methods.get) continue;
    const idsListed = async (apiKey: string) => {
      const listed = await api(path, { key: apiKey, query: { pageSize: '100' } });
      const records = listed.status === 200 ? listed.body?.[match[1]!] : undefined;
      return Array.isArray(records)
        ? records.map((r: { id: number }) => r.id).filter((id) => Number.isInteger(id))
        : [];
    };
    // what both installations list is shared by all (the apps' catalogue, the platform's statuses, time zones): not theirs
    const ourOwn = new Set(await idsListed(ours.users.owner.apiKey));
    const only = (await idsListed(key)).filter((id) => !ourOwn.has(id));
    if (only.length) theirIds.set(match[1]!, only);
  }
  expect(theirIds.get('tickets')).toContain(ticket);
  expect([...theirIds.keys()]).toEqual(
    expect.arrayContaining([
      'businesshours',
      'cannedresponses',
      'companies',
      'contactforms',
      'customers',
      'customfields',
      'files',
      'inboxes',
      'messages',
      'maildomains',
      'slas',
      'spamlists',
      'tags',
      'ticketactivities',
      'tickets',
      'triggers',
      'users',
      'webhookendpoints',
    ]),
  );
}, 120_000);

describe("another installation's records", () => {
  it('are not read, changed or deleted by id, on any operation', async () => {
    const before = await snapshot(theirs.id);
    const oursBefore = await rows<{ n: number }>('SELECT count(*)::int AS n FROM tickets WHERE installation_id = $1', [
      ours.id,
    ]);
    const leaks: string[] = [];
    let tried = 0;
    for (const [template, methods] of Object.entries(document.paths)) {
      const match = /^\/v2\/([a-z]+)\/\{id\}/.exec(template);
      if (!match) continue;
      const ids = theirIds.get(match[1]!) ?? [];
      for (const id of ids.slice(0, 3)) {
        for (const [method, operation] of Object.entries(methods)) {
          if (Array.isArray(operation.security) && operation.security.length === 0) continue;
          // other path parameters: their ticket's other ids are theirs too, or nothing at all
          const path = template.replace('{id}', String(id)).replace(/\{\w+\}/g, '1');
          const body = operation.requestBody ? {} : undefined;
          const answer = await api(path, {
            method: method.toUpperCase(),
            key: ours.users.owner.apiKey,
            body,
            query: method === 'get' ? { includes: 'all' } : undefined,
          });
          tried++;
          if (answer.status < 400)
            leaks.push(`${method.toUpperCase()} ${path} answered ${answer.status}: ${answer.text.slice(0, 160)}`);
        }
      }
    }
    expect(tried).toBeGreaterThan(100);
    expect(leaks).toEqual([]);
    expect(await snapshot(theirs.id)).toEqual(before);
    expect(await rows('SELECT count(*)::int AS n FROM tickets WHERE installation_id = $1', [ours.id])).toEqual(
      oursBefore,
    );
  }, 300_000);

  it('are not found by filter on any list', async () => {
    const leaks: string[] = [];
    let tried = 0;
    for (const [path, methods] of Object.entries(document.paths)) {
      const match = /^\/v2\/([a-z]+)\.json$/.exec(path);
      if (!match || !methods.get || !(methods.get.parameters ?? []).some((p: { name: string }) => p.name === 'filter'))
        continue;
      const ids = theirIds.get(match[1]!) ?? [];
      if (ids.length === 0) continue;
      const answer = await api(path, {
        key: ours.users.owner.apiKey,
        query: { filter: JSON.stringify({ id: { $in: ids } }), pageSize: '100' },
      });
      tried++;
      const found =
        answer.status === 200
          ? ((answer.body[match[1]!] ?? []) as { id: number }[]).filter((r) => ids.includes(r.id))
          : [];
      if (found.length) leaks.push(`${path}: their ${found.map((r) => r.id).join(', ')}`);
    }
    expect(tried).toBeGreaterThan(15);
    expect(leaks).toEqual([]);
  });

  it('are not taken by reference in a write: a 4xx, and nothing written on either side', async () => {
    const before = await snapshot(theirs.id);
    const oursBefore = await snapshot(ours.id);
    const their = (k: string) => theirIds.get(k)![0]!;
    const key = ours.users.owner.apiKey;
    const ourInbox = (await api('/v2/inboxes.json', { key })).body.inboxes[0].id;
    const writes: Array<[string, string, unknown]> = [
      [
        'POST',
        '/v2/tickets.json',
        { ticket: { subject: 'x', inbox: { id: their('inboxes') }, customer: { email: 'x@ours.test' }, message: 'x' } },
      ],
      [
        'POST',
        '/v2/tickets.json',
        { ticket: { subject: 'x', inbox: ourInbox, customer: { id: their('customers') }, message: 'x' } },
      ],
      [
        'POST',
        '/v2/tickets.json',
        {
          ticket: {
            subject: 'x',
            inbox: ourInbox,
            customer: { email: 'x@ours.test' },
            tags: [{ id: their('tags') }],
            message: 'x',
          },
        },
      ],
      ['POST', '/v2/customers.json', { customer: { email: 'y@ours.test', companies: [{ id: their('companies') }] } }],
      [
        'POST',
        '/v2/triggers.json',
        { trigger: { name: 'x', triggeractions: [{ type: 5, value: String(their('tags')) }] } },
      ],
      ['POST', '/v2/slas.json', { sla: { name: 'x', slainboxes: [{ inbox: { id: their('inboxes') } }] } }],
      [
        'POST',
        '/v2/webhookendpoints.json',
        {
          webhookendpoint: {
            url: 'http://127.0.0.1:9/x',
            token: 'x-token-0123456789',
            allInboxes: false,
            webhookendpointinboxes: [{ inbox: { id: their('inboxes') } }],
          },
        },
      ],
      ['POST', '/v2/timelogs.json', { timeLog: { ticket: { id: their('tickets') }, seconds: 60 } }],
      ['POST', `/v2/tickets/${their('tickets')}/messages.json`, { message: 'x' }],
    ];
    for (const [method, path, body] of writes) {
      const answer = await api(path, { method, key, body });
      expect(answer.status, `${method} ${path} ${JSON.stringify(body)}: ${answer.text}`).toBeGreaterThanOrEqual(400);
      expect(answer.status, `${method} ${path}`).toBeLessThan(500);
    }
    expect(await snapshot(theirs.id)).toEqual(before);
    expect(await snapshot(ours.id)).toEqual(oursBefore);
  });

  it('are not claimed by mail: their domain, addresses and sending addresses stay theirs, and nothing is written on either side', async () => {
    const key = ours.users.owner.apiKey;
    const ourInbox = (await api('/v2/inboxes.json', { key })).body.inboxes[0].id;
    // what we may write: a claim of their domain, and their addresses listed on our inbox (both stay unverified)
    const claim = await claimMailDomain(key, `${theirs.siteName}.test`);
    const listed = await api(`/v2/inboxes/${ourInbox}.json`, {
      method: 'PATCH',
      key,
      body: { inbox: { email: `help@${theirs.siteName}.test`, aliases: [`sales@${theirs.siteName}.test`] } },
    });
    expect(listed.body.inbox.unverifiedAddresses).toHaveLength(2);
    const before = await snapshot(theirs.id);
    const oursBefore = await snapshot(ours.id);
    const verify = await api(`/v2/maildomains/${claim.id}/verify.json`, { method: 'POST', key });
    expect(verify.status, verify.text).toBe(409);
    for (const from of [`help@${theirs.siteName}.test`, `support@${theirs.siteName}.mail.localhost`]) {
      expect(
        (await api(`/v2/inboxes/${ourInbox}.json`, { method: 'PATCH', key, body: { inbox: { sendEmailsFrom: from } } }))
          .status,
        from,
      ).toBe(400);
    }
    expect(
      (
        await api(`/v2/inboxes/${ourInbox}.json`, {
          method: 'PATCH',
          key,
          body: { inbox: { aliases: [`theirs@${theirs.siteName}.mail.localhost`] } },
        })
      ).status,
    ).toBe(400);
    // mail to an address of their domain that only we list is refused, and recorded nowhere
    const caught = await send({
      from: 'kim@customer.test',
      to: `sales@${theirs.siteName}.test`,
      subject: 'Meant for them',
    });
    expect(caught.status).toBe(400);
    expect(await snapshot(theirs.id)).toEqual(before);
    expect(await snapshot(ours.id)).toEqual(oursBefore);
  });
});
