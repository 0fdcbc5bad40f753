// A mail domain's claim is one exchange with the database (its rule and its token need none); its
// verification two: the claim read first, then, once the TXT record is found over DNS, one batch
// marks it verified with its event and reads it back. Refusals answer the same 4xx as ever and
// write nothing (docs/connection-strategy.md, "Writes in one round trip").
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { eventsSince, lastEventId } from '../support/events';
import { claimMailDomain, publishTxt } from '../support/mail-domains';
import { withRoundTrips } from '../support/round-trips';

let site: SeededInstallation;
let other: SeededInstallation;
let key: string;
let domain: string;

beforeAll(async () => {
  site = await newInstallation('domain-trips');
  other = await newInstallation('domain-trips-other');
  key = site.users.admin.apiKey;
  domain = `trips-${Date.now()}.example.test`;
});

/** The request's answer and round trips, the credential looked up just before (so the count is the write alone). */
async function tripsOf(path: string, body?: unknown, caller = key) {
  expect((await api('/v2/me.json', { key: caller })).status).toBe(200);
  return withRoundTrips(path, { key: caller, method: 'POST', body });
}

const events = async (installation: SeededInstallation, mark: number) =>
  (await eventsSince(installation.id, mark)).map((e) => `${e.recordType} ${e.recordId} ${e.kind}`);
const domains = () =>
  rows(`SELECT to_jsonb(d) AS row FROM mail_domains d WHERE installation_id = ANY($1) ORDER BY id`, [
    [site.id, other.id],
  ]);

describe('mail domains in one or two round trips', () => {
  it('claims a domain in one exchange and verifies it in two, with their events', async () => {
    const mark = await lastEventId(site.id);
    const claimed = await tripsOf('/v2/maildomains.json', { maildomain: { name: domain } });
    expect(claimed.answer.status, claimed.answer.text).toBe(201);
    expect(claimed.trips).toBe(1);
    const claim = claimed.answer.body.maildomain;
    expect(claim).toMatchObject({
      name: domain,
      verified: false,
      dnsRecord: { type: 'TXT', name: `_helpdesk-verification.${domain}` },
    });
    await publishTxt(claim.dnsRecord.name, [claim.dnsRecord.value]);
    const verified = await tripsOf(`/v2/maildomains/${claim.id}/verify.json`);
    expect(verified.answer.status, verified.answer.text).toBe(200);
    expect(verified.trips).toBe(2);
    expect(verified.answer.body.maildomain).toMatchObject({ id: claim.id, verified: true });
    // verified again: nothing changes
    const again = await tripsOf(`/v2/maildomains/${claim.id}/verify.json`);
    expect(again.answer.status, again.answer.text).toBe(200);
    expect(again.answer.body.maildomain.verifiedAt).toBe(verified.answer.body.maildomain.verifiedAt);
    expect(await events(site, mark)).toEqual([`maildomains ${claim.id} created`, `maildomains ${claim.id} updated`]);
  });

  it('refuses a domain at the mail domain (before any exchange), a second claim (one), and the verification of a domain another helpdesk verified (two), writing nothing', async () => {
    const mark = await lastEventId(site.id);
    const theirMark = await lastEventId(other.id);
    const theirs = await claimMailDomain(other.users.admin.apiKey, domain);
    await publishTxt(theirs.dnsRecord.name, [theirs.dnsRecord.value]);
    const before = await domains();
    for (const [path, body, caller, status, source, detail, trips] of [
      [
        '/v2/maildomains.json',
        { maildomain: { name: `${site.siteName}.mail.localhost` } },
        key,
        400,
        'maildomain.name',
        "addresses at mail.localhost are the helpdesk's own: an inbox's localPart gives it one there, with no domain to verify",
        0,
      ],
      [
        '/v2/maildomains.json',
        { maildomain: { name: domain.toUpperCase() } },
        key,
        409,
        'maildomain.name',
        'this domain is claimed here already',
        1,
      ],
      [`/v2/maildomains/${theirs.id}/verify.json`, undefined, key, 404, 'id', `maildomain ${theirs.id} not found`, 1],
      [
        `/v2/maildomains/${theirs.id}/verify.json`,
        undefined,
        other.users.admin.apiKey,
        409,
        'name',
        `another installation has verified ${domain}; it receives and sends its mail`,
        2,
      ],
    ] as const) {
      const { answer, trips: made } = await tripsOf(path, body, caller);
      expect(answer.status, answer.text).toBe(status);
      expect(answer.body.errors).toEqual([
        { code: { 400: 'invalid', 404: 'notFound', 409: 'conflict' }[status], source, detail },
      ]);
      expect(made, `${path} ${JSON.stringify(body)}`).toBe(trips);
    }
    expect(await domains()).toEqual(before);
    expect(await events(site, mark)).toEqual([]);
    expect(await events(other, theirMark)).toEqual([`maildomains ${theirs.id} created`]);
  });
});

describe("a mail domain's delete in one round trip", () => {
  it("deletes a claim in one exchange; the helpdesk's own domain is a 409 in one, and stays", async () => {
    const [own] = await rows<{ id: number }>(
      `INSERT INTO mail_domains (installation_id, name, verification_token, verified_at) VALUES ($1, $2, 'own', now()) RETURNING id`,
      [site.id, `${site.siteName}.mail.localhost`],
    );
    const remove = async (id: number) => {
      expect((await api('/v2/me.json', { key })).status).toBe(200);
      return withRoundTrips(`/v2/maildomains/${id}.json`, { key, method: 'DELETE' });
    };
    const refused = await remove(own!.id);
    expect(refused.answer.status).toBe(409);
    expect(refused.answer.body.errors).toEqual([
      {
        code: 'conflict',
        source: 'id',
        detail: `${site.siteName}.mail.localhost is this helpdesk's own domain at the mail domain; it needs no proof and stays`,
      },
    ]);
    expect(refused.trips).toBe(1);
    expect(await rows('SELECT state FROM mail_domains WHERE id = $1', [own!.id])).toEqual([{ state: 'active' }]);
    const claimed = await api('/v2/maildomains.json', {
      key,
      method: 'POST',
      body: { maildomain: { name: `gone-${Date.now()}.example.test` } },
    });
    expect(claimed.status, claimed.text).toBe(201);
    const gone = await remove(claimed.body.maildomain.id);
    expect(gone.answer.status, gone.answer.text).toBe(204);
    expect(gone.trips).toBe(1);
  });
});
