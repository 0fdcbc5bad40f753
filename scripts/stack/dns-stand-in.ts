// A DNS-over-HTTPS resolver for the local stack: it answers the JSON form (`application/dns-json`)
// the Worker asks Cloudflare's resolver in production (`src/lib/outbound/dns.ts`), from records
// the tests (or a developer on `npm run dev`) set. Names it has no record of do not exist.
//   GET /dns-query?name=&type=   the question, as the Worker asks it
//   PUT /records                 {"name": "_x.acme.com", "type": "TXT", "values": ["..."]}: replaces that name's records of that type ([] removes them)
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './read-body';

const TYPES: Record<string, number> = { A: 1, CNAME: 5, TXT: 16, AAAA: 28 };

/** A TXT value as a resolver's JSON writes it: quoted, in strings of at most 255 characters. */
const quotedTxt = (value: string) =>
  (value.match(/[\s\S]{1,255}/g) ?? ['']).map((part) => `"${part.replace(/["\\]/g, '\\$&')}"`).join(' ');

export interface DnsStandIn {
  /** the resolver's address, for `DNS_OVER_HTTPS_URL` */
  url: string;
  /** where records are set: `PUT <controlUrl>/records` */
  controlUrl: string;
  stop(): Promise<void>;
}

export async function startDnsStandIn(): Promise<DnsStandIn> {
  const records = new Map<string, string[]>();
  const key = (name: string, type: string) => `${name.toLowerCase().replace(/\.$/, '')} ${type.toUpperCase()}`;
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const json = (status: number, body: unknown, type = 'application/json') =>
      response.writeHead(status, { 'content-type': type }).end(JSON.stringify(body));
    (async () => {
      if (request.method === 'GET' && url.pathname === '/dns-query') {
        if (request.headers.accept !== 'application/dns-json')
          return json(400, { error: 'ask for application/dns-json' });
        const name = url.searchParams.get('name') ?? '';
        const type = (url.searchParams.get('type') ?? 'A').toUpperCase();
        const values = records.get(key(name, type)) ?? [];
        const known = [...records.keys()].some((k) => k.startsWith(`${key(name, '')}`));
        return json(
          200,
          {
            Status: known ? 0 : 3,
            Question: [{ name, type: TYPES[type] ?? 0 }],
            Answer: values.map((value) => ({
              name,
              type: TYPES[type] ?? 0,
              TTL: 60,
              data: type === 'TXT' ? quotedTxt(value) : value,
            })),
          },
          'application/dns-json',
        );
      }
      if (request.method === 'PUT' && url.pathname === '/records') {
        const body = JSON.parse(await readBody(request)) as { name: string; type: string; values: string[] };
        if (body.values.length) records.set(key(body.name, body.type), body.values);
        else records.delete(key(body.name, body.type));
        return json(200, { ok: true });
      }
      json(404, { error: 'no such path' });
    })().catch((error: unknown) => json(400, { error: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/dns-query`,
    controlUrl: base,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
