import { and, eq, sql, type SQL } from 'drizzle-orm';
import { AGENTS } from '../../auth/access';
import { companies, companyCustomers, customers, pmConnections, pmLinks } from '../../db/schema';
import { recordScope } from '../../engine';
import { recordEventsStatement } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { idParams } from '../../http/params';
import { errorResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { companiesResource } from './companies.resource';
import { PM_SYNC_BUDGET_MS, PmClient } from './pm-client';
import { loadPmSettings } from './pm-connection';
/** Calls in flight at once: a Worker may hold six outgoing connections. */
const CONCURRENCY = 6;

interface Link {
  localType: 'companies' | 'customers';
  localId: number;
  remoteId: string;
}
interface Company {
  name: string;
  email: string | null;
  website: string | null;
  industry: string | null;
}
interface Member {
  id: number;
  email: string;
  firstName: string;
  lastName: string;
  remoteId: string | null;
}

async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * `POST /v2/companies/{id}/pmsync.json` (rule 3): makes the company and its live customers exist
 * in the project-management product, the people members of the company there, and records the
 * remote ids in pm_links. All remote work happens first; the links are written together at the
 * end, in one batch, so a failure leaves nothing local half-written (see docs/resources/pmsync.md on retries).
 */
export const syncCompanyRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/companies/{id}/pmsync.json',
    tag: 'Companies',
    operationId: 'syncCompany',
    roles: AGENTS,
    summary: 'Synchronise a company and its customers with the project-management product',
    description:
      "Makes the company and each of its live customers with an email exist in the project-management product (found by stored id, name or email, else created) and links the people to the company there; only when every call succeeded are the remote ids stored, the connection's `lastSyncedAt` set and a `synced` event of the company recorded, so a failure writes nothing here and a retry is safe. A company of another installation or deleted is a 404; no connection, a token that no longer decrypts or a refused address is a 409. The product failing or refusing the token is a 502, and not finishing within the 5-second budget a 504. See docs/resources/pmsync.md.",
    request: { params: idParams },
    responses: {
      200: { description: 'synchronised; no body' },
      409: errorResponse(
        'no project-management connection is configured, its token cannot be read, or its address is refused',
      ),
      502: errorResponse('the project-management product failed, refused the token or answered a redirect'),
      503: errorResponse('the server cannot handle project-management tokens (PM_TOKEN_KEY)'),
      504: errorResponse('the project-management product did not answer in time'),
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { id } = c.req.valid('param');
    const db = c.var.db;
    const installation = who.installationId;
    const linkOf = (type: Link['localType'], localId: unknown) => sql`(SELECT ${pmLinks.remoteId} FROM ${pmLinks}
    WHERE ${pmLinks.installationId} = ${installation} AND ${pmLinks.localType} = ${type} AND ${pmLinks.localId} = ${localId})`;
    // What the product is to be asked, in one exchange (the company, its link, its people), beside
    // the connection's settings (their address checked by DNS): a 404 for the company comes first.
    const reads = db.batch([
      sql`SELECT ${companies.name} AS name, ${companies.email} AS email, ${companies.website} AS website, ${companies.industry} AS industry
          FROM ${companies} WHERE ${and(recordScope(companiesResource, who), eq(companies.id, id))}`,
      sql`SELECT ${linkOf('companies', id)} AS "remoteId"`,
      sql`SELECT ${customers.id} AS id, ${customers.email} AS email, ${customers.firstName} AS "firstName", ${customers.lastName} AS "lastName",
               ${linkOf('customers', customers.id)} AS "remoteId"
          FROM ${companyCustomers} JOIN ${customers} ON ${customers.id} = ${companyCustomers.customerId}
         WHERE ${and(eq(companyCustomers.companyId, id), eq(customers.installationId, installation), eq(customers.state, 'active'), sql`btrim(${customers.email}) <> ''`)}
         ORDER BY ${customers.id}`,
    ]);
    const [read, configured] = await Promise.allSettled([reads, loadPmSettings(db, c.env, installation)]);
    if (read.status === 'rejected') throw read.reason;
    const [[company], [companyLink], people] = read.value as [Company[], { remoteId: string | null }[], Member[]];
    if (!company) throw ApiError.notFound('id', `company ${id} not found`);
    if (configured.status === 'rejected') throw configured.reason;
    const settings = configured.value;
    const members = people.map((member) => ({ ...member, id: Number(member.id) }));

    const remote = new PmClient(settings.baseUrl, settings.token, AbortSignal.timeout(PM_SYNC_BUDGET_MS));
    // A stored id the product no longer knows is found again by name, or created.
    const remoteCompanyId =
      (companyLink?.remoteId && (await remote.companyById(companyLink.remoteId))) ||
      (await remote.findOrCreateCompany(company));
    const links: Link[] = [{ localType: 'companies', localId: id, remoteId: remoteCompanyId }];
    await eachLimited(members, CONCURRENCY, async (member) => {
      const person = { email: member.email.trim(), firstName: member.firstName, lastName: member.lastName };
      const personId =
        (member.remoteId && (await remote.personById(member.remoteId))) || (await remote.findOrCreatePerson(person));
      await remote.link(remoteCompanyId, personId);
      links.push({ localType: 'customers', localId: member.id, remoteId: personId });
    });

    // the links, the connection's last sync and the event: one batch
    const written = [
      db.http
        .insert(pmLinks)
        .values(links.map((link) => ({ ...link, installationId: installation })))
        .onConflictDoUpdate({
          target: [pmLinks.installationId, pmLinks.localType, pmLinks.localId],
          set: { remoteId: sql`excluded.remote_id`, syncedAt: sql`now()` },
        })
        .getSQL(),
      db.http
        .update(pmConnections)
        .set({ lastSyncedAt: sql`now()` })
        .where(and(eq(pmConnections.installationId, installation), eq(pmConnections.state, 'active')))
        .getSQL(),
      recordEventsStatement(who, [
        {
          recordType: 'companies',
          recordId: id,
          kind: 'synced',
          data: { product: 'pm', remoteId: remoteCompanyId, people: links.length - 1 },
        },
      ]),
    ];
    await db.batch(written.filter((statement): statement is SQL => statement !== undefined));
    return c.body(null, 200);
  },
);
