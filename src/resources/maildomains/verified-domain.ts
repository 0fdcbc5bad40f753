import { sql, type SQL } from 'drizzle-orm';

/**
 * SQL: whether `name` is a live mail domain verified by the installation `installationId`, or by
 * any installation when it is null: the one test of a domain's proof, wherever mail is received,
 * sent or shown.
 */
export function domainVerified(installationId: number | SQL | null, name: string | SQL): SQL {
  const whose = installationId === null ? sql`` : sql` AND d.installation_id = ${installationId}`;
  return sql`EXISTS (SELECT 1 FROM mail_domains d WHERE d.name = ${name}${whose} AND d.state = 'active' AND d.verified_at IS NOT NULL)`;
}
