// A stand-in for the project-management product: the REST protocol of docs/resources/pmsync.md,
// in memory, on a real port the Worker in workerd can fetch. Switches make it fail.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type PmFailure = 'fail' | 'hang' | 'refuse' | 'garbage' | 'redirect';

export interface PmPersonRecord {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
}
export interface PmTaskRecord {
  id: number;
  name: string;
  url?: string;
}

export interface PmServer {
  url: string;
  token: string;
  companies: Map<string, { id: string; name: string }>;
  people: Map<string, PmPersonRecord>;
  /** `companyId/personId` */
  memberships: Set<string>;
  /** the product's tasks by id (tests put them here; the API only reads them) */
  tasks: Map<number, PmTaskRecord>;
  /** every request, as `METHOD /path` */
  requests: string[];
  /** the `Authorization` header of every request, in order */
  authorizations: (string | undefined)[];
  /** where the `redirect` failure sends the caller (307, the same path and query under it) */
  redirectTo: string;
  /** how many records each POST created */
  created: { companies: number; people: number };
  /** From the request after the next `after` ones on, answer with this failure; `null` heals it. */
  failWith(failure: PmFailure | null, after?: number): void;
  close(): Promise<void>;
}

export async function startPmServer(token = 'pm-token-' + Math.random().toString(36).slice(2)): Promise<PmServer> {
  let nextId = 100;
  let failure: PmFailure | null = null;
  let healthyLeft = 0;
  const state: Omit<PmServer, 'url' | 'close' | 'failWith'> = {
    token,
    companies: new Map(),
    people: new Map(),
    memberships: new Set(),
    tasks: new Map(),
    requests: [],
    authorizations: [],
    redirectTo: 'http://127.0.0.1:9',
    created: { companies: 0, people: 0 },
  };

  const json = (res: ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };

  async function readBody(req: IncomingMessage): Promise<any> {
    let text = '';
    for await (const chunk of req) text += chunk;
    return text ? JSON.parse(text) : undefined;
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://pm');
    state.requests.push(`${req.method} ${url.pathname}`);
    state.authorizations.push(req.headers.authorization);
    if (failure && healthyLeft-- <= 0) {
      if (failure === 'hang') return; // never answers
      if (failure === 'fail') return json(res, 500, { error: 'internal' });
      if (failure === 'refuse') return json(res, 401, { error: 'bad token' });
      if (failure === 'redirect') {
        res.writeHead(307, { location: `${state.redirectTo}${url.pathname}${url.search}` });
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<html>this is not the API</html>');
    }
    if (req.headers.authorization !== `Bearer ${token}`) return json(res, 401, { error: 'bad token' });
    const parts = url.pathname.split('/').filter(Boolean);
    const body = await readBody(req);
    const lower = (s: string | null) => (s ?? '').toLowerCase();

    if (parts[0] === 'companies' && parts.length === 1) {
      if (req.method === 'GET') {
        const name = lower(url.searchParams.get('name'));
        return json(res, 200, { companies: [...state.companies.values()].filter((c) => lower(c.name) === name) });
      }
      if (req.method === 'POST') {
        const company = { id: `c${nextId++}`, name: String(body.name) };
        state.companies.set(company.id, company);
        state.created.companies++;
        return json(res, 201, company);
      }
    }
    if (parts[0] === 'companies' && parts.length === 2 && req.method === 'GET') {
      const company = state.companies.get(parts[1]!);
      return company ? json(res, 200, company) : json(res, 404, { error: 'no such company' });
    }
    if (parts[0] === 'companies' && parts[2] === 'people' && parts.length === 4 && req.method === 'PUT') {
      if (!state.companies.has(parts[1]!) || !state.people.has(parts[3]!))
        return json(res, 404, { error: 'no such record' });
      state.memberships.add(`${parts[1]}/${parts[3]}`);
      return json(res, 204);
    }
    if (parts[0] === 'people' && parts.length === 1) {
      if (req.method === 'GET') {
        const email = lower(url.searchParams.get('email'));
        return json(res, 200, { people: [...state.people.values()].filter((p) => lower(p.email) === email) });
      }
      if (req.method === 'POST') {
        const person = {
          id: `p${nextId++}`,
          email: String(body.email),
          firstName: String(body.firstName),
          lastName: String(body.lastName),
        };
        state.people.set(person.id, person);
        state.created.people++;
        return json(res, 201, person);
      }
    }
    if (parts[0] === 'people' && parts.length === 2 && req.method === 'GET') {
      const person = state.people.get(parts[1]!);
      return person ? json(res, 200, person) : json(res, 404, { error: 'no such person' });
    }
    if (parts[0] === 'tasks' && parts.length === 2 && req.method === 'GET') {
      const task = /^\d+$/.test(parts[1]!) ? state.tasks.get(Number(parts[1])) : undefined;
      return task ? json(res, 200, { task }) : json(res, 404, { error: 'no such task' });
    }
    return json(res, 404, { error: 'no such route' });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => json(res, 400, { error: 'bad request' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    failWith(next: PmFailure | null, after = 0) {
      failure = next;
      healthyLeft = after;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
