import { z } from 'zod';
import { ApiError } from '../../http/errors';

/**
 * The project-management product's REST protocol, as far as company sync and task links use it
 * (see docs/resources/pmsync.md): JSON over HTTP(S), `Authorization: Bearer <token>`, paths under the
 * installation's base address. Every call shares one deadline (`signal`); every way the product
 * can fail becomes the one answer our client sees: 504 when the deadline passes, 502 otherwise.
 * A redirect is a failure, never followed: it could take the token to an address nobody checked.
 */
const remoteId = z.union([z.string().min(1).max(255), z.number().int()]).transform(String);
const companySchema = z.object({ id: remoteId, name: z.string() });
const personSchema = z.object({ id: remoteId, email: z.string() });
const companyList = z.object({ companies: z.array(companySchema) });
const personList = z.object({ people: z.array(personSchema) });
// the product's tasks are numbered; their address is optional in its answer
const taskSchema = z.object({
  task: z.object({
    id: z.union([
      z.number().int().positive(),
      z
        .string()
        .regex(/^[1-9]\d{0,14}$/)
        .transform(Number),
    ]),
    name: z.string(),
    url: z.string().max(2048).nullish(),
  }),
});

export interface PmCompany {
  name: string;
  email?: string | null;
  website?: string | null;
  industry?: string | null;
}
export interface PmPerson {
  email: string;
  firstName: string;
  lastName: string;
}
export interface PmTask {
  id: number;
  name: string;
  url: string | null;
}

const badGateway = (detail: string) => new ApiError(502, [{ code: 'badGateway', source: 'pmconnection', detail }]);

export class PmClient {
  private readonly base: string;

  constructor(
    baseUrl: string,
    private readonly token: string,
    private readonly signal: AbortSignal,
  ) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  /** The remote company with that id, or `null` when the product no longer knows it. */
  async companyById(id: string): Promise<string | null> {
    const found = await this.call('GET', `/companies/${encodeURIComponent(id)}`, undefined, companySchema, true);
    return found?.id ?? null;
  }

  /** The id of the remote company of that name (ignoring case), creating it when there is none. */
  async findOrCreateCompany(company: PmCompany): Promise<string> {
    const { companies } = await this.call(
      'GET',
      `/companies?name=${encodeURIComponent(company.name)}`,
      undefined,
      companyList,
    );
    const match = companies.find((c) => c.name.toLowerCase() === company.name.toLowerCase());
    if (match) return match.id;
    return (await this.call('POST', '/companies', company, companySchema)).id;
  }

  async personById(id: string): Promise<string | null> {
    const found = await this.call('GET', `/people/${encodeURIComponent(id)}`, undefined, personSchema, true);
    return found?.id ?? null;
  }

  /** The id of the remote person with that email (ignoring case), creating them when there is none. */
  async findOrCreatePerson(person: PmPerson): Promise<string> {
    const { people } = await this.call(
      'GET',
      `/people?email=${encodeURIComponent(person.email)}`,
      undefined,
      personList,
    );
    const match = people.find((p) => p.email.toLowerCase() === person.email.toLowerCase());
    if (match) return match.id;
    return (await this.call('POST', '/people', person, personSchema)).id;
  }

  /** The remote task with that id, or `null` when the product does not have it. */
  async taskById(id: number): Promise<PmTask | null> {
    const found = await this.call('GET', `/tasks/${id}`, undefined, taskSchema, true);
    if (!found) return null;
    if (found.task.id !== id)
      throw badGateway(`the project-management product answered GET /tasks/${id} with another task (${found.task.id})`);
    return { id, name: found.task.name, url: found.task.url ?? null };
  }

  /** Makes the person a member of the company; the product treats a repeat as a no-op. */
  async link(companyId: string, personId: string): Promise<void> {
    await this.call(
      'PUT',
      `/companies/${encodeURIComponent(companyId)}/people/${encodeURIComponent(personId)}`,
      undefined,
      null,
    );
  }

  private call<T>(
    method: string,
    path: string,
    body: unknown,
    schema: z.ZodType<T>,
    notFoundIsNull: true,
  ): Promise<T | null>;
  private call<T>(method: string, path: string, body: unknown, schema: z.ZodType<T>): Promise<T>;
  private call(method: string, path: string, body: unknown, schema: null): Promise<void>;
  private async call<T>(
    method: string,
    path: string,
    body: unknown,
    schema: z.ZodType<T> | null,
    notFoundIsNull = false,
  ): Promise<T | null | void> {
    const what = `${method} ${path.replace(/\?.*/, '')}`;
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.base + path, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
        signal: this.signal,
      });
      text = await response.text();
    } catch (error) {
      if (this.signal.aborted) {
        throw new ApiError(504, [
          {
            code: 'gatewayTimeout',
            source: 'pmconnection',
            detail: `the project-management product did not answer in time (${what})`,
          },
        ]);
      }
      throw badGateway(`the project-management product could not be reached (${what}): ${(error as Error).message}`);
    }
    if (response.status >= 300 && response.status < 400) {
      throw badGateway(
        `the project-management product answered ${what} with a redirect (${response.status}), which is not followed; set the address it should be called at with PUT /v2/pmconnection.json`,
      );
    }
    if (response.status === 401 || response.status === 403) {
      throw badGateway(
        `the project-management product refused the token (${what} answered ${response.status}); set a valid token with PUT /v2/pmconnection.json`,
      );
    }
    if (response.status === 404 && notFoundIsNull) return null;
    if (!response.ok) throw badGateway(`the project-management product answered ${response.status} to ${what}`);
    if (!schema) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw badGateway(`the project-management product answered ${what} with something that is not JSON`);
    }
    const result = schema.safeParse(parsed);
    if (!result.success) throw badGateway(`the project-management product answered ${what} with an unexpected body`);
    return result.data;
  }
}

/** The whole sync's time with the product, every call included. */
export const PM_SYNC_BUDGET_MS = 5_000;
