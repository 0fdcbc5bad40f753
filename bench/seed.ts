// The benchmark's data: one installation with an owner key, and N companies each with two
// domains, a phone, an address, a social link, time-log settings and three customer links.
// Set-based SQL through `pg` (one INSERT ... SELECT per table), not the API: seconds, not minutes.
import pg from 'pg';
import { createInstallation } from '../scripts/seed';

export interface BenchData {
  installationId: number;
  ownerKey: string;
  ownerUserId: number;
  /** the seeded companies' ids, ascending */
  companyIds: number[];
  /** rows per table, as counted after seeding */
  rows: Record<string, number>;
}

const CUSTOMER_LINKS = 3;

export async function seed(databaseUrl: string, companies: number): Promise<BenchData> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    const installation = await createInstallation(client, `bench-${Date.now().toString(36)}`);
    const owner = installation.users.owner;
    const p = [installation.id, owner.id, companies];
    // $1 installation, $2 the owner (created_by), $3 how many companies.
    await client.query(
      `INSERT INTO companies (installation_id, created_by, updated_by, name, description, industry, website, email, kind, permission)
       SELECT $1, $2, $2, 'Company ' || lpad(n::text, 6, '0'), 'Seeded for the benchmark', (ARRAY['Software','Retail','Health','Energy'])[1 + n % 4],
              'https://c' || n || '.example.com', 'hello@c' || n || '.example.com', 'company', 'all'
       FROM generate_series(1, $3::int) n`,
      p,
    );
    await client.query(
      `INSERT INTO customers (installation_id, created_by, updated_by, first_name, last_name, email, organization)
       SELECT $1, $2, $2, 'Customer', n::text, 'customer' || n || '@c' || n || '.example.com', 'Company ' || lpad(n::text, 6, '0')
       FROM generate_series(1, $3::int) n`,
      p,
    );
    // Each company's ordinal n, so children can be derived from it.
    const each = `FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM companies WHERE installation_id = $1) c`;
    const owned = [installation.id, owner.id]; // $1, $2
    await client.query(
      `INSERT INTO company_domains (installation_id, created_by, updated_by, company_id, name)
       SELECT $1, $2, $2, c.id, d || c.n || '.example.com' ${each} CROSS JOIN unnest(ARRAY['c', 'mail.c']) d`,
      owned,
    );
    await client.query(
      `INSERT INTO company_phones (installation_id, created_by, updated_by, company_id, number, type, country_code)
       SELECT $1, $2, $2, c.id, '+1 555 ' || lpad(c.n::text, 7, '0'), 'work', '1' ${each}`,
      owned,
    );
    await client.query(
      `INSERT INTO company_addresses (installation_id, created_by, updated_by, company_id, line1, city, region, postal_code, country)
       SELECT $1, $2, $2, c.id, c.n || ' Market Street', 'Springfield', 'IL', lpad((c.n % 100000)::text, 5, '0'), 'US' ${each}`,
      owned,
    );
    await client.query(
      `INSERT INTO company_social_links (installation_id, created_by, updated_by, company_id, type, url)
       SELECT $1, $2, $2, c.id, 'linkedin', 'https://www.linkedin.com/company/c' || c.n ${each}`,
      owned,
    );
    await client.query(
      `INSERT INTO company_timelog_settings (installation_id, created_by, updated_by, company_id, billable, hourly_rate, currency)
       SELECT $1, $2, $2, c.id, c.n % 5 <> 0, 50 + c.n % 100, 'EUR' ${each}`,
      owned,
    );
    // Company n links customers n, n + N/3, n + 2N/3 (mod N): distinct, and every customer in 3 companies.
    await client.query(
      `INSERT INTO company_customers (installation_id, created_by, company_id, customer_id)
       SELECT $1, $2, c.id, u.id ${each}
       CROSS JOIN generate_series(0, ${CUSTOMER_LINKS - 1}) k
       JOIN (SELECT id, row_number() OVER (ORDER BY id) AS n FROM customers WHERE installation_id = $1) u
         ON u.n = 1 + (c.n - 1 + k * ($3::int / ${CUSTOMER_LINKS})) % $3::int`,
      p,
    );
    await client.query('COMMIT');
    // VACUUM as well: the visibility map autovacuum keeps in a live database, which index-only
    // scans (the page's count, the customer links) rely on; without it the first minutes differ.
    await client.query('VACUUM (ANALYZE)');

    const { rows: ids } = await client.query<{ id: number }>(
      'SELECT id FROM companies WHERE installation_id = $1 ORDER BY id',
      [installation.id],
    );
    const rows: Record<string, number> = {};
    for (const table of [
      'companies',
      'customers',
      'company_domains',
      'company_phones',
      'company_addresses',
      'company_social_links',
      'company_timelog_settings',
      'company_customers',
    ]) {
      const { rows: counted } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${table} WHERE installation_id = $1`,
        [installation.id],
      );
      rows[table] = counted[0]!.n;
    }
    return {
      installationId: installation.id,
      ownerKey: owner.apiKey,
      ownerUserId: owner.id,
      companyIds: ids.map((r) => r.id),
      rows,
    };
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    await client.end();
  }
}
