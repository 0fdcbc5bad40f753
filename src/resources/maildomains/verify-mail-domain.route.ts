import { and, eq, sql } from 'drizzle-orm';
import { ADMINS } from '../../auth/access';
import { sqlState } from '../../db/errors';
import { mailDomains } from '../../db/schema';
import { recordScope, schemasOf, sendWithReadBack } from '../../engine';
import { withEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { idParams } from '../../http/params';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { destinationRules } from '../../lib/outbound/destination';
import { dnsAnswers, txtText } from '../../lib/outbound/dns';
import { mailDomainsResource } from './maildomains.resource';
import { txtRecordName, txtRecordValue } from './txt-record';

/** How long the resolver may take before the check is given up (a 503, to try again). */
const RESOLVER_TIMEOUT_MS = 5_000;

/**
 * `POST /v2/maildomains/{id}/verify.json`: looks for the domain's TXT record (`dnsRecord`) through
 * DNS over HTTPS and, when it is there, marks the domain verified. A domain another installation
 * holds verified stays theirs (409); a record not found yet is a 409 saying what was looked for and
 * what was found. Verifying a verified domain again changes nothing.
 */
export const verifyMailDomainRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/maildomains/{id}/verify.json',
    tag: 'Inboxes',
    operationId: 'verifyMailDomain',
    roles: ADMINS,
    summary: "Verify a mail domain: look for its TXT record; once found, the inboxes' addresses on it receive and send",
    description:
      "Asks the DNS-over-HTTPS resolver for the domain's TXT record (`dnsRecord`) and, once it holds the expected value, marks the domain verified with an `updated` event: from then on the inboxes' addresses on it receive mail and may send from it. A record not found yet is a 409 naming `dnsRecord`, saying what was looked for and what was found; a domain another installation has verified is a 409 naming `name`; the resolver not answering within 5 seconds is a 503 with `Retry-After`. Verifying a verified domain again answers 200 and changes nothing. See docs/resources/maildomains.md.",
    request: { params: idParams },
    responses: {
      200: jsonResponse('the domain, verified', schemasOf(mailDomainsResource).one),
      404: errorResponse('no such mail domain here'),
      409: errorResponse('the TXT record is not there (yet), or another installation has verified this domain'),
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { id } = c.req.valid('param');
    const [domain] = await c.var.db.http
      .select({
        name: mailDomains.name,
        token: mailDomains.verificationToken,
        verified: sql<boolean>`${mailDomains.verifiedAt} IS NOT NULL`,
      })
      .from(mailDomains)
      .where(and(recordScope(mailDomainsResource, who), eq(mailDomains.id, id)));
    if (!domain) throw ApiError.notFound('id', `maildomain ${id} not found`);

    if (!domain.verified) {
      const recordName = txtRecordName(domain.name);
      const expected = txtRecordValue(domain.token);
      let found: string[];
      try {
        found = (
          await dnsAnswers(
            recordName,
            'TXT',
            destinationRules(c.env).resolverUrl,
            AbortSignal.timeout(RESOLVER_TIMEOUT_MS),
          )
        ).map(txtText);
      } catch {
        throw new ApiError(
          503,
          [
            {
              code: 'unavailable',
              source: 'dns',
              detail: `the DNS resolver did not answer for ${recordName}; try again`,
            },
          ],
          { 'Retry-After': '30' },
        );
      }
      if (!found.includes(expected)) {
        const seen = found.length
          ? `found only ${found
              .slice(0, 5)
              .map((text) => JSON.stringify(text.slice(0, 100)))
              .join(', ')}`
          : 'found none';
        throw ApiError.conflict(
          'dnsRecord',
          `no TXT record "${expected}" at ${recordName} yet (${seen}); DNS changes can take a while to be seen`,
        );
      }
    }

    try {
      // one exchange: the mark with its event, and the domain read back as it leaves it
      const verify = withEvents(
        sql`
      UPDATE mail_domains d SET verified_at = now(), updated_at = now(), updated_by = ${who.userId}
       WHERE d.id = ${id} AND d.installation_id = ${who.installationId} AND d.state = 'active' AND d.verified_at IS NULL
      RETURNING d.id`,
        who,
        'maildomains',
        'updated',
        sql`jsonb_build_object('verified', jsonb_build_object('before', false, 'after', true))`,
      );
      const body = await sendWithReadBack(c.var.db, mailDomainsResource, who, [verify], sql`${id}::int`, []);
      // deleted since it was read
      if (!body) throw ApiError.notFound('id', `maildomain ${id} not found`);
      return c.json(body, 200);
    } catch (error) {
      if (sqlState(error).constraint === 'mail_domains_verified_name_key')
        throw ApiError.conflict(
          'name',
          `another installation has verified ${domain.name}; it receives and sends its mail`,
        );
      throw error;
    }
  },
);
