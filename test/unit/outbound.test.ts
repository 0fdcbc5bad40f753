// Where webhook deliveries may go: public addresses only, checked on the literal and on what a
// name resolves to, through a DNS-over-HTTPS stand-in started here (the JSON protocol the
// production code speaks to Cloudflare's resolver).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../src/lib/outbound/address';
import { refusedDestination, type DestinationRules } from '../../src/lib/outbound/destination';

let resolver: Server;
let rules: DestinationRules;
const answers: Record<string, { A?: string[]; AAAA?: string[]; status?: number }> = {
  'hooks.example.com': { A: ['93.184.216.34'], AAAA: ['2606:2800:220:1:248:1893:25c8:1946'] },
  'rebind.example.com': { A: ['93.184.216.34', '10.1.2.3'] },
  'metadata.example.com': { A: ['169.254.169.254'] },
  'six.example.com': { AAAA: ['::ffff:127.0.0.1'] },
  'nowhere.example.com': {},
  'broken.example.com': { status: 500 },
};

beforeAll(async () => {
  resolver = createServer((request, response) => {
    const url = new URL(request.url!, 'http://resolver');
    const entry = answers[url.searchParams.get('name')!];
    if (request.headers.accept !== 'application/dns-json' || entry?.status) {
      response.writeHead(entry?.status ?? 400).end();
      return;
    }
    const type = url.searchParams.get('type') as 'A' | 'AAAA';
    const data = entry?.[type] ?? [];
    response.writeHead(200, { 'content-type': 'application/dns-json' });
    response.end(
      JSON.stringify({
        Status: entry ? 0 : 3,
        Answer: data.map((address) => ({
          name: url.searchParams.get('name'),
          type: type === 'A' ? 1 : 28,
          TTL: 60,
          data: address,
        })),
      }),
    );
  });
  await new Promise<void>((resolve) => resolver.listen(0, '127.0.0.1', resolve));
  rules = {
    allowHttp: false,
    allowedPrivateHosts: new Set(),
    resolverUrl: `http://127.0.0.1:${(resolver.address() as AddressInfo).port}/dns-query`,
  };
});

afterAll(() => new Promise<void>((resolve) => resolver.close(() => resolve())));

describe('addresses', () => {
  it('tells public from loopback, private, link-local and the rest', () => {
    for (const address of [
      '93.184.216.34',
      '8.8.8.8',
      '2606:4700::1111',
      '[2606:4700::1111]',
      '100.63.0.1',
      '172.32.0.1',
    ])
      expect(isPublicAddress(address), address).toBe(true);
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '192.0.2.1',
      '198.18.0.1',
      '::1',
      '[::1]',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::a00:1',
      '2002:a00:1::1',
      '2001:db8::1',
      '::7f00:1',
      '::127.0.0.1',
      '::ffff:0:127.0.0.1',
      'fec0::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '100::1',
      'not-an-address',
      '1.2.3',
      '01.2.3.4',
      '1::2::3',
    ])
      expect(isPublicAddress(address), address).toBe(false);
  });
});

describe('destinations', () => {
  const refused = (address: string, extra: Partial<DestinationRules> = {}) =>
    refusedDestination(address, { ...rules, ...extra });

  it('lets a public https address through, literal or by name', async () => {
    expect(await refused('https://93.184.216.34/hook')).toBeUndefined();
    expect(await refused('https://hooks.example.com/desk?x=1')).toBeUndefined();
  });

  it('refuses other schemes, credentials, private literals in every spelling, and private names', async () => {
    expect(await refused('http://hooks.example.com/')).toMatch(/https/);
    expect(await refused('ftp://hooks.example.com/')).toMatch(/https/);
    expect(await refused('hooks.example.com/x')).toMatch(/absolute URL/);
    expect(await refused('https://user:pass@hooks.example.com/')).toMatch(/credentials/);
    for (const address of [
      'https://[::127.0.0.1]/',
      'https://127.0.0.1/',
      'https://0x7f.1/',
      'https://2130706433/',
      'https://[::1]/',
      'https://[::ffff:10.0.0.1]/',
      'https://169.254.169.254/latest/meta-data',
      'https://192.168.0.10:8443/',
    ]) {
      expect(await refused(address), address).toMatch(/loopback, private or link-local/);
    }
    for (const address of [
      'https://localhost/',
      'https://api.localhost/',
      'https://printer.local/',
      'https://db.internal/',
      'https://intranet/',
    ]) {
      expect(await refused(address), address).toMatch(/local or private host/);
    }
  });

  it('refuses a name that resolves to any private address, to nothing, or cannot be resolved', async () => {
    expect(await refused('https://rebind.example.com/')).toMatch(/resolves to 10\.1\.2\.3/);
    expect(await refused('https://metadata.example.com/')).toMatch(/169\.254\.169\.254/);
    expect(await refused('https://six.example.com/')).toMatch(/::ffff:127\.0\.0\.1/);
    expect(await refused('https://nowhere.example.com/')).toMatch(/does not resolve/);
    expect(await refused('https://broken.example.com/')).toMatch(/could not be resolved/);
  });

  it('lets the local stack name its receivers and use http, and nothing else private', async () => {
    const local = { allowHttp: true, allowedPrivateHosts: new Set(['127.0.0.1']) };
    expect(await refused('http://127.0.0.1:8787/hook', local)).toBeUndefined();
    expect(await refused('http://10.0.0.1/hook', local)).toMatch(/private/);
    expect(await refused('http://localhost:8787/hook', local)).toMatch(/local or private host/);
  });
});
