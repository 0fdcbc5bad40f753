// Where the project-management token may go, under a deployment's rules: on a Worker of this
// file's own (the same bundle and database as the others) without the local stack's allowance
// (`WEBHOOK_ALLOW_HTTP`, `WEBHOOK_ALLOWED_PRIVATE_HOSTS` unset), resolving names through a
// DNS-over-HTTPS stand-in started here. An http address, the loopback stand-in the other tests
// sync with, and a name resolving to a private address are refused on write, and a stored one is
// never called.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { startDnsStandIn, type DnsStandIn } from '../../scripts/stack/dns-stand-in';
import { DEV_PM_TOKEN_KEY } from '../../scripts/worker-vars';
import { serveWorker, type WorkerUnderTest } from '../../scripts/worker-under-test';
import { encryptToken, pmTokenContext } from '../../src/lib/crypto';
import { checkAnswer } from '../support/contract';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { startPmServer, type PmServer } from '../support/pm-server';

let worker: WorkerUnderTest;
let dns: DnsStandIn;
let pm: PmServer;
let site: SeededInstallation;

const call = async (path: string, method = 'GET', body?: unknown) => {
  const url = `${worker.url}${path}`;
  const headers: Record<string, string> = { authorization: `Bearer ${site.users.admin.apiKey}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return checkAnswer(
    method,
    url,
    await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
  );
};
const put = (baseUrl: string) => call('/v2/pmconnection.json', 'PUT', { pmconnection: { baseUrl, token: pm.token } });
const stored = () => rows('SELECT base_url FROM pm_connections WHERE installation_id = $1', [site.id]);
const setRecord = (name: string, type: 'A' | 'AAAA', values: string[]) =>
  fetch(`${dns.controlUrl}/records`, { method: 'PUT', body: JSON.stringify({ name, type, values }) });

beforeAll(async () => {
  dns = await startDnsStandIn();
  pm = await startPmServer();
  worker = await serveWorker(inject('stackParts'), inject('workerScript'), {
    vars: { WEBHOOK_ALLOW_HTTP: '', WEBHOOK_ALLOWED_PRIVATE_HOSTS: '', DNS_OVER_HTTPS_URL: dns.url },
  });
  site = await newInstallation('pm-address');
  await setRecord('pm.inside.test', 'A', ['10.1.2.3']);
  await setRecord('pm.sneaky.test', 'A', ['93.184.216.34']);
  await setRecord('pm.sneaky.test', 'AAAA', ['::1']);
  await setRecord('pm.public.test', 'A', ['93.184.216.34']);
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await pm?.close();
  await dns?.stop();
});

describe("PUT /v2/pmconnection.json under a deployment's rules", () => {
  it('refuses http, the loopback stand-in and names resolving to a private address: 400 naming baseUrl, storing nothing', async () => {
    expectError(await put('http://93.184.216.34/api'), 400, 'pmconnection.baseUrl', /https/);
    expectError(
      await put(pm.url.replace(/^http:/, 'https:')),
      400,
      'pmconnection.baseUrl',
      /127\.0\.0\.1 is a loopback/,
    );
    expectError(await put(pm.url), 400, 'pmconnection.baseUrl', /https/);
    expectError(
      await put('https://pm.inside.test'),
      400,
      'pmconnection.baseUrl',
      /pm\.inside\.test resolves to 10\.1\.2\.3/,
    );
    expectError(await put('https://pm.sneaky.test'), 400, 'pmconnection.baseUrl', /resolves to ::1/);
    expectError(await put('https://pm.nowhere.test'), 400, 'pmconnection.baseUrl', /does not resolve/);
    expect(await stored()).toEqual([]);
  });

  it('takes an https name resolving only to public addresses', async () => {
    const response = await put('https://pm.public.test/api/');
    expect(response.status, response.text).toBe(200);
    expect(response.body.pmconnection.baseUrl).toBe('https://pm.public.test/api');
  });
});

describe('a sync with a stored address the rules refuse', () => {
  it('calls nothing and answers 409 naming why', async () => {
    const ciphertext = await encryptToken(pm.token, DEV_PM_TOKEN_KEY, pmTokenContext(site.id));
    await rows('UPDATE pm_connections SET base_url = $2, token_ciphertext = $3 WHERE installation_id = $1', [
      site.id,
      pm.url,
      ciphertext,
    ]);
    const [company] = await rows<{ id: number }>(
      `INSERT INTO companies (installation_id, name) VALUES ($1, 'Inside Co') RETURNING id`,
      [site.id],
    );
    expectError(
      await call(`/v2/companies/${company!.id}/pmsync.json`, 'POST'),
      409,
      'pmconnection',
      /refused: must be an https address/,
    );
    expect(pm.requests).toEqual([]);
    expect(await rows('SELECT 1 FROM pm_links WHERE installation_id = $1', [site.id])).toEqual([]);
  });
});
