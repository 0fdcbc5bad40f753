import { z } from 'zod';
import { hashSecret, newApiKey } from '../auth/secrets';
import { SYSTEM_TRIGGERS } from '../resources/triggers/system-triggers';

/** What provisioning needs of a database client: `pg`'s Client and Pool both are one. */
export interface SqlRunner {
  query(text: string, values: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

export const provisionOptions = z.strictObject({
  /** the installation's unique site name: its subdomain on the platform */
  siteName: z
    .string()
    .regex(
      /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
      'must be 1 to 63 lowercase letters, digits and dashes, not starting or ending with a dash',
    ),
  ownerEmail: z.email().max(254),
  /** shown to people; `<site> helpdesk` when absent */
  name: z.string().trim().min(1).max(255).optional(),
  ownerFirstName: z.string().trim().min(1).max(100).optional(),
  ownerLastName: z.string().trim().max(100).optional(),
  /** the owner's key, given instead of made: for the local stack and tests only */
  ownerKey: z.string().min(1).optional(),
});
export type ProvisionOptions = z.input<typeof provisionOptions>;

export interface Provisioned {
  installationId: number;
  ownerId: number;
  /** the owner's API key: shown once, only its hash is stored */
  ownerKey: string;
}

export class ProvisionError extends Error {}

/*
 * One statement, so an installation exists whole or not at all: the installation, its owner and
 * the owner's key, the ticket vocabulary (`provision_ticket_vocabulary`, migration 0009: the
 * priorities, types and sources), a default inbox (`Support`, receiving at `support@<siteName>.<MAIL_DOMAIN>`), default business hours (Monday to Friday,
 * 09:00 to 17:00 UTC), the satisfaction survey's three rating options, and the service's own triggers (`system-triggers.ts`). The platform's ticket statuses are shared rows every installation has.
 */
const PROVISION = `
WITH installation AS (
  INSERT INTO installations (name, site_name) VALUES ($1, $2) RETURNING id
), owner AS (
  INSERT INTO users (installation_id, first_name, last_name, email, role)
  SELECT id, $3, $4, $5, 'owner' FROM installation RETURNING id, installation_id
), owner_key AS (
  INSERT INTO credentials (installation_id, user_id, kind, name, prefix, secret_hash)
  SELECT installation_id, id, 'api_key', 'owner key', $6, $7 FROM owner
), vocabulary AS (
  SELECT provision_ticket_vocabulary(id) FROM installation
), inbox AS (
  INSERT INTO inboxes (installation_id, name, local_part, ticket_status_id, created_by, updated_by)
  SELECT installation_id, 'Support', 'support', 1, id, id FROM owner RETURNING id, installation_id, created_by
), members AS (
  INSERT INTO inbox_users (installation_id, inbox_id, user_id, access, created_by)
  SELECT installation_id, id, created_by, 'full', created_by FROM inbox
), hours AS (
  INSERT INTO business_hours (installation_id, name, description, is_default, timezone_id, timezone_name, created_by, updated_by)
  SELECT installation_id, 'Working hours', 'Monday to Friday, 09:00 to 17:00', true, 1, 'UTC', id, id FROM owner RETURNING id, installation_id, created_by
), schedules AS (
  INSERT INTO business_hours_schedules (installation_id, businesshours_id, day, start_hour, end_hour, created_by, updated_by)
  SELECT hours.installation_id, hours.id, day, '09:00', '17:00', hours.created_by, hours.created_by FROM hours, generate_series(1, 5) AS day
), rating_options AS (
  INSERT INTO happiness_rating_options (installation_id, name, score, display_order, created_by, updated_by)
  SELECT owner.installation_id, o.name, o.score, o.display_order, owner.id, owner.id FROM owner
  CROSS JOIN (VALUES ('Great', 3, 1), ('Okay', 2, 2), ('Not good', 1, 3)) AS o(name, score, display_order)
), system_triggers AS (
  INSERT INTO triggers (installation_id, name, description, is_system, system_key, state, created_by, updated_by)
  SELECT owner.installation_id, s.name, s.description, true, s.key, s.state, owner.id, owner.id FROM owner
  CROSS JOIN jsonb_to_recordset($8::jsonb) AS s(key text, name text, description text, state text)
)
-- data-changing parts always run; a SELECT part only when the statement reads it
SELECT (SELECT id FROM installation) AS installation_id, (SELECT id FROM owner) AS owner_id, (SELECT count(*) FROM vocabulary) AS vocabulary`;

/**
 * A new installation with its defaults and its owner, who gets an API key. The operators'
 * command (`npm run installation -- create`), the local stack's demo and the tests all make
 * installations with this.
 */
export async function provisionInstallation(db: SqlRunner, given: ProvisionOptions): Promise<Provisioned> {
  const parsed = provisionOptions.safeParse(given);
  if (!parsed.success)
    throw new ProvisionError(
      parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '),
    );
  const options = parsed.data;
  const key =
    options.ownerKey === undefined
      ? await newApiKey()
      : { secret: options.ownerKey, prefix: options.ownerKey.slice(0, 7), hash: await hashSecret(options.ownerKey) };
  const firstName = options.ownerFirstName ?? options.ownerEmail.split('@')[0]!;
  try {
    const { rows } = await db.query(PROVISION, [
      options.name ?? `${options.siteName} helpdesk`,
      options.siteName,
      firstName,
      options.ownerLastName ?? '',
      options.ownerEmail,
      key.prefix,
      key.hash,
      JSON.stringify(SYSTEM_TRIGGERS),
    ]);
    const row = rows[0]!;
    return { installationId: Number(row.installation_id), ownerId: Number(row.owner_id), ownerKey: key.secret };
  } catch (error) {
    if ((error as { constraint?: string }).constraint === 'installations_site_name_unique') {
      throw new ProvisionError(`an installation with the site name "${options.siteName}" already exists`);
    }
    throw error;
  }
}
