import { sql } from 'drizzle-orm';
import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { ADMINS, requireRole } from '../../auth/access';
import { companies, companyCustomers, customers } from '../../db/schema';
import { addRoute } from '../../http/route';
import { errorBodySchema } from '../../openapi/schemas';

const error = { description: 'error', schema: errorBodySchema };

/** A customer's organization as a company name: trimmed of whitespace at both ends. */
const organizationName = sql`regexp_replace(${customers.organization}, '^\\s+|\\s+$', '', 'g')`;

/**
 * `POST /v2/companies/migrate.json` (rule 5): every distinct organization of the installation's
 * live customers becomes a company (or finds the live one of that name, ignoring case), and the
 * customers become its members. Two set-based statements in one transaction; both only insert
 * what is missing, so a second run changes nothing.
 */
export function migrateRoute(app: Hono<AppEnv>): void {
  addRoute(app, {
    method: 'post', path: '/v2/companies/migrate.json', tag: 'companies', summary: 'Turn customers\' organizations into companies',
    responses: { 200: { description: 'done; no body' }, 401: error, 403: error },
  }, async (c) => {
    const who = c.var.principal;
    requireRole(who, ADMINS);
    const installation = who.installationId;
    const organizations = sql`${customers.installationId} = ${installation} AND ${customers.state} = 'active' AND ${organizationName} <> ''`;
    await c.var.db.transaction(async (tx) => {
      // Of several spellings of one name, the oldest customer's wins.
      await tx.execute(sql`
        INSERT INTO ${companies} (installation_id, name, created_by, updated_by)
        SELECT DISTINCT ON (lower(${organizationName})) ${installation}::int, ${organizationName}, ${who.userId}::int, ${who.userId}::int
        FROM ${customers} WHERE ${organizations}
        ORDER BY lower(${organizationName}), ${customers.id}
        ON CONFLICT (installation_id, lower(name)) WHERE state = 'active' DO NOTHING`);
      await tx.execute(sql`
        INSERT INTO ${companyCustomers} (installation_id, company_id, customer_id, created_by)
        SELECT ${installation}::int, ${companies.id}, ${customers.id}, ${who.userId}::int
        FROM ${customers} JOIN ${companies}
          ON ${companies.installationId} = ${installation} AND ${companies.state} = 'active' AND lower(${companies.name}) = lower(${organizationName})
        WHERE ${organizations}
        ON CONFLICT (company_id, customer_id) DO NOTHING`);
    });
    return c.body(null, 200);
  });
}
