import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Env } from '../../app-env';
import { ADMINS } from '../../auth/access';
import { mailDomains } from '../../db/schema';
import { AUDIT_SET, computedFrom, defineResource, timeProperty } from '../../engine';
import { ApiError } from '../../http/errors';
import { mailDomainOf, underMailDomain } from '../mail/mail-address';
import { includedUsers } from '../users/user-shape';
import { newVerificationToken, TXT_PREFIX, TXT_VALUE_PREFIX } from './txt-record';

const HOST = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

const domainName = z
  .string()
  .trim()
  .toLowerCase()
  .transform((name) => name.replace(/\.$/, ''))
  .pipe(z.string().regex(HOST, 'must be a domain name such as acme.com'))
  .meta({ description: 'the domain, such as acme.com (lowercase; fixed once claimed)' });

const dnsRecord = z
  .object({ type: z.literal('TXT'), name: z.string(), value: z.string() })
  .meta({ description: 'the DNS record to publish before asking for verification' });

/** Addresses at the mail domain are the helpdesk's own: no domain under it is claimed. */
function refuseOwnDomain(env: Env, record: Record<string, unknown>): void {
  const name = record.name as string | undefined;
  if (name && underMailDomain(env, name)) {
    throw ApiError.invalid(
      'maildomain.name',
      `addresses at ${mailDomainOf(env)} are the helpdesk's own: an inbox's localPart gives it one there, with no domain to verify`,
    );
  }
}

/**
 * Domains an installation claims for its inboxes' own addresses: an inbox receives at an `email`
 * or alias, and sends from a `sendEmailsFrom`, outside the mail domain only on a domain its
 * installation verified (`verify-mail-domain.route.ts`). A verified domain belongs to one installation.
 */
export const mailDomainsResource = defineResource({
  type: 'maildomains',
  singular: 'maildomain',
  title: { one: 'MailDomain', many: 'MailDomains', group: 'Inboxes' },
  table: mailDomains,
  fields: {
    name: { column: mailDomains.name, schema: domainName, required: true, notInBulk: true },
  },
  computed: {
    verified: {
      type: 'boolean',
      schema: z.boolean().meta({ description: 'the TXT record was found: its addresses receive and send' }),
      expr: sql`(${mailDomains.verifiedAt} IS NOT NULL)`,
    },
    verifiedAt: computedFrom(timeProperty(mailDomains.verifiedAt), 'datetime'),
    dnsRecord: {
      type: 'string',
      schema: dnsRecord,
      expr: sql`json_build_object('type', 'TXT', 'name', ${TXT_PREFIX} || '.' || ${mailDomains.name}, 'value', ${TXT_VALUE_PREFIX} || ${mailDomains.verificationToken})`,
    },
  },
  filter: [...AUDIT_SET, 'name', 'verified'],
  relations: { users: includedUsers() },
  constraints: {
    mail_domains_installation_name_key: { source: 'maildomain.name', detail: 'this domain is claimed here already' },
  },
  access: { read: ADMINS, write: ADMINS },
  examples: {
    create: { name: 'acme-support.example' },
  },
  operations: ['list', 'get', 'create', 'delete'],
  beforeWrite: ({ env }, record) => refuseOwnDomain(env, record),
  // the installation's own domain at the mail domain is listed for what it is, never taken away
  beforeDelete: async ({ tx, env }, id) => {
    const { rows } = await tx.execute(sql`SELECT d.name FROM mail_domains d WHERE d.id = ${id}`);
    if (rows[0] && underMailDomain(env, String(rows[0].name)))
      throw ApiError.conflict(
        'id',
        `${String(rows[0].name)} is this helpdesk's own domain at the mail domain; it needs no proof and stays`,
      );
  },
  onCreate: () => ({ verificationToken: newVerificationToken() }),
  // the rule and the token need no database: a create is one batch
  planned: {
    before: (_who, record, _id, _read, env) => {
      refuseOwnDomain(env, record);
      return true;
    },
    onCreate: () => ({ verificationToken: newVerificationToken() }),
    // the beforeDelete rule as a check of the delete's batch
    beforeDelete: (_who, id, env) => {
      const own = mailDomainOf(env);
      if (own === undefined) return [];
      return [
        sql`SELECT desk_refuse(409, 'id', d.name || ' is this helpdesk''s own domain at the mail domain; it needs no proof and stays')
        FROM mail_domains d WHERE d.id = ${id} AND (lower(d.name) = ${own} OR lower(d.name) LIKE ${`%.${own}`})`,
      ];
    },
  },
});
