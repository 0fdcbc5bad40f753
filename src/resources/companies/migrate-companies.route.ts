import { sql } from 'drizzle-orm';
import { ADMINS } from '../../auth/access';
import { companies, companyCustomers, customers } from '../../db/schema';
import { insertEventsFrom } from '../../events/record-events';
import { defineRoute } from '../../http/route';

/** A customer's organization as a company name: trimmed of whitespace at both ends. */
const organizationName = sql`regexp_replace(${customers.organization}, '^\\s+|\\s+$', '', 'g')`;

/**
 * `POST /v2/companies/migrate.json` (rule 5): every distinct organization of the installation's
 * live customers becomes a company (or finds the live one of that name, ignoring case), and the
 * customers become its members. Two set-based statements in one batch (one exchange); both only insert
 * what is missing, so a second run changes nothing (and writes no event). Each company made is a
 * `migrated` event, each customer linked a `linked` one.
 */
export const migrateCompaniesRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/companies/migrate.json',
    tag: 'Companies',
    operationId: 'migrateCompanies',
    roles: ADMINS,
    summary: "Turn customers' organizations into companies",
    description: 'Idempotent: a second run changes nothing.',
    responses: { 200: { description: 'done; no body' } },
  },
  async (c) => {
    const who = c.var.principal;
    const installation = who.installationId;
    const organizations = sql`${customers.installationId} = ${installation} AND ${customers.state} = 'active' AND ${organizationName} <> ''`;
    // one batch: the second statement sees the companies the first made
    await c.var.db.batch([
      // Of several spellings of one name, the oldest customer's wins.
      sql`
      WITH made AS (
        INSERT INTO ${companies} (installation_id, name, created_by, updated_by)
        SELECT DISTINCT ON (lower(${organizationName})) ${installation}::int, ${organizationName}, ${who.userId}::int, ${who.userId}::int
        FROM ${customers} WHERE ${organizations}
        ORDER BY lower(${organizationName}), ${customers.id}
        ON CONFLICT (installation_id, lower(name)) WHERE state = 'active' DO NOTHING
        RETURNING id)
      ${insertEventsFrom(sql`made`, who, 'companies', 'migrated')}`,
      sql`
      WITH linked AS (
        INSERT INTO ${companyCustomers} (installation_id, company_id, customer_id, created_by)
        SELECT ${installation}::int, ${companies.id}, ${customers.id}, ${who.userId}::int
        FROM ${customers} JOIN ${companies}
          ON ${companies.installationId} = ${installation} AND ${companies.state} = 'active' AND lower(${companies.name}) = lower(${organizationName})
        WHERE ${organizations}
        ON CONFLICT (company_id, customer_id) DO NOTHING
        RETURNING company_id AS id, customer_id)
      ${insertEventsFrom(sql`linked`, who, 'companies', 'linked', sql`jsonb_build_object('relation', 'customers', 'record', jsonb_build_object('id', r.customer_id, 'type', 'customers'))`)}`,
    ]);
    return c.body(null, 200);
  },
);
