// Addresses an installation claims outside the mail domain (issue 31, items 2 and 3): a domain
// is proven by a DNS TXT record (`/v2/maildomains.json`, verified through the DNS-over-HTTPS
// stand-in), belongs to one installation once proven, and only then receives (an inbox's `email`,
// `aliases`) or sends (`sendEmailsFrom`). Another installation claiming the same addresses
// neither blocks the owner's mail nor captures it, and cannot send as the owner.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { claimMailDomain, publishTxt, verifiedMailDomain } from '../support/mail-domains';
import { eventually } from '../support/room';
import { send, sentTo } from './support';

let owner: SeededInstallation;
let intruder: SeededInstallation;
let ownerInbox: number;
let intruderInbox: number;
let domain: string;

const ticketsOf = (installationId: number, subject: string) =>
  rows<{ id: number; inbox_id: number }>(
    'SELECT id, inbox_id FROM tickets WHERE installation_id = $1 AND subject = $2',
    [installationId, subject],
  );
const inboundOf = (installationId: number) =>
  rows<{ outcome: string }>('SELECT outcome FROM inbound_mails WHERE installation_id = $1', [installationId]);
const firstInbox = async (key: string) => (await api('/v2/inboxes.json', { key })).body.inboxes[0].id as number;
const patchInbox = (key: string, id: number, inbox: Record<string, unknown>) =>
  api(`/v2/inboxes/${id}.json`, { method: 'PATCH', key, body: { inbox } });

beforeAll(async () => {
  owner = await newInstallation('claims-owner');
  intruder = await newInstallation('claims-intruder');
  ownerInbox = await firstInbox(owner.users.admin.apiKey);
  intruderInbox = await firstInbox(intruder.users.admin.apiKey);
  domain = `${owner.siteName}.test`;
});

describe('mail domains', () => {
  it('are claimed with the TXT record to publish, and verified only once it is published', async () => {
    const key = owner.users.admin.apiKey;
    const claim = await claimMailDomain(key, `Mail.${domain}.`);
    expect(claim).toMatchObject({
      name: `mail.${domain}`,
      verified: false,
      verifiedAt: null,
      dnsRecord: { type: 'TXT', name: `_helpdesk-verification.mail.${domain}` },
    });
    expect(claim.dnsRecord.value).toMatch(/^helpdesk-verification=[0-9a-f]{32}$/);

    const missing = expectError(
      await api(`/v2/maildomains/${claim.id}/verify.json`, { method: 'POST', key }),
      409,
      'dnsRecord',
    );
    expect(missing.detail).toContain(
      `no TXT record "${claim.dnsRecord.value}" at ${claim.dnsRecord.name} yet (found none)`,
    );
    await publishTxt(claim.dnsRecord.name, ['v=spf1 -all', 'helpdesk-verification=0123456789abcdef0123456789abcdef']);
    const wrong = expectError(
      await api(`/v2/maildomains/${claim.id}/verify.json`, { method: 'POST', key }),
      409,
      'dnsRecord',
    );
    expect(wrong.detail).toContain('found only "v=spf1 -all"');
    const [unchanged] = await rows<{ verified_at: Date | null }>('SELECT verified_at FROM mail_domains WHERE id = $1', [
      claim.id,
    ]);
    expect(unchanged!.verified_at).toBeNull();

    await publishTxt(claim.dnsRecord.name, ['v=spf1 -all', claim.dnsRecord.value]);
    const verified = await api(`/v2/maildomains/${claim.id}/verify.json`, { method: 'POST', key });
    expect(verified.status, verified.text).toBe(200);
    expect(verified.body.maildomain).toMatchObject({ id: claim.id, verified: true });
    expect(Date.parse(verified.body.maildomain.verifiedAt)).toBeGreaterThan(Date.now() - 60_000);
    const listed = await api('/v2/maildomains.json', { key, query: { filter: { verified: true } } });
    expect(listed.body.maildomains.map((d: { name: string }) => d.name)).toContain(`mail.${domain}`);
  });

  it('bad names, the mail domain itself, a second claim, agents and other installations: 4xx, nothing written', async () => {
    const key = owner.users.admin.apiKey;
    for (const name of [
      'acme',
      'not a domain',
      '-x.test',
      'a..b.test',
      `${'x'.repeat(64)}.test`,
      'mail.localhost',
      `${owner.siteName}.mail.localhost`,
    ]) {
      expectError(
        await api('/v2/maildomains.json', { method: 'POST', key, body: { maildomain: { name } } }),
        400,
        'maildomain.name',
      );
    }
    const claim = await claimMailDomain(key, `twice.${domain}`);
    expectError(
      await api('/v2/maildomains.json', { method: 'POST', key, body: { maildomain: { name: `TWICE.${domain}` } } }),
      409,
      'maildomain.name',
    );
    expect(
      (
        await api('/v2/maildomains.json', {
          method: 'POST',
          key: owner.users.agent.apiKey,
          body: { maildomain: { name: `agent.${domain}` } },
        })
      ).status,
    ).toBe(403);
    expect(
      (await api(`/v2/maildomains/${claim.id}/verify.json`, { method: 'POST', key: owner.users.agent.apiKey })).status,
    ).toBe(403);
    expectError(
      await api(`/v2/maildomains/${claim.id}/verify.json`, { method: 'POST', key: intruder.users.admin.apiKey }),
      404,
    );
    expectError(await api(`/v2/maildomains/${claim.id}.json`, { key: intruder.users.admin.apiKey }), 404);
    expect(
      (
        await api(`/v2/maildomains/${claim.id}.json`, {
          method: 'PATCH',
          key,
          body: { maildomain: { name: 'other.test' } },
        })
      ).status,
    ).toBe(404);
  });
});

describe("the attack of issue 31, item 2: another installation claims the owner's address", () => {
  it("neither blocks the owner's mail nor receives it; its claim stays unverified and is listed as such", async () => {
    const ownerKey = owner.users.admin.apiKey;
    const intruderKey = intruder.users.admin.apiKey;
    const address = `support@${domain}`;
    // before the owner proves the domain, its own address does not receive either: refused with the reason
    const named = await patchInbox(ownerKey, ownerInbox, { email: address });
    expect(named.status, named.text).toBe(200);
    expect(named.body.inbox.unverifiedAddresses).toEqual([address]);
    const early = await send({ from: 'kim@customer.test', to: address, subject: 'Too early' });
    expect(early.status).toBe(400);
    expect(early.text).toContain(`${address} does not receive here yet: its domain ${domain} is not verified`);
    expect(await ticketsOf(owner.id, 'Too early')).toEqual([]);

    await verifiedMailDomain(ownerKey, domain);
    expect((await api(`/v2/inboxes/${ownerInbox}.json`, { key: ownerKey })).body.inbox.unverifiedAddresses).toEqual([]);

    // the intruder lists the owner's address, and an address of the owner's domain the owner never listed (a catch-all route)
    const claimed = await patchInbox(intruderKey, intruderInbox, { email: address, aliases: [`billing@${domain}`] });
    expect(claimed.status, claimed.text).toBe(200);
    expect(claimed.body.inbox.unverifiedAddresses.sort()).toEqual([`billing@${domain}`, address].sort());
    // and tries to verify the domain: its own record published beside the owner's is not enough
    const theirClaim = await claimMailDomain(intruderKey, domain);
    const ownerRecord = (await api('/v2/maildomains.json', { key: ownerKey, query: { filter: { name: domain } } })).body
      .maildomains[0].dnsRecord.value;
    await publishTxt(theirClaim.dnsRecord.name, [ownerRecord, theirClaim.dnsRecord.value]);
    const stolen = expectError(
      await api(`/v2/maildomains/${theirClaim.id}/verify.json`, { method: 'POST', key: intruderKey }),
      409,
      'name',
    );
    expect(stolen.detail).toBe(`another installation has verified ${domain}; it receives and sends its mail`);

    const taken = await send({ from: 'kim@customer.test', to: address, subject: 'Still mine' });
    expect(taken.status, taken.text).toBe(200);
    expect(await ticketsOf(owner.id, 'Still mine')).toEqual([expect.objectContaining({ inbox_id: ownerInbox })]);
    const caught = await send({ from: 'kim@customer.test', to: `billing@${domain}`, subject: 'Invoice attached' });
    expect(caught.status).toBe(400);
    // the owner proved the domain: its mail is refused as any address no inbox has, saying nothing of who lists it
    expect(caught.text).toContain(`no inbox receives mail at billing@${domain}`);
    expect(await ticketsOf(intruder.id, 'Still mine')).toEqual([]);
    expect(await ticketsOf(intruder.id, 'Invoice attached')).toEqual([]);
    // nothing of the owner's mail is recorded on the intruder's side
    expect(await inboundOf(intruder.id)).toEqual([]);
  });
});

describe('the attack of issue 31, item 3: sending as another installation', () => {
  it("refuses a sendEmailsFrom at another site's mail domain, or on a domain the installation has not verified", async () => {
    const intruderKey = intruder.users.admin.apiKey;
    const before = await rows('SELECT send_emails_from FROM inboxes WHERE id = $1', [intruderInbox]);
    for (const from of [
      `support@${owner.siteName}.mail.localhost`,
      `support@${domain}`,
      'ceo@unverified.test',
      'x@mail.localhost',
    ]) {
      expectError(await patchInbox(intruderKey, intruderInbox, { sendEmailsFrom: from }), 400, 'inbox.sendEmailsFrom');
    }
    expectError(
      await patchInbox(intruderKey, intruderInbox, { aliases: [`sales@${owner.siteName}.mail.localhost`] }),
      400,
      'inbox.aliases[0]',
    );
    expect(await rows('SELECT send_emails_from FROM inboxes WHERE id = $1', [intruderInbox])).toEqual(before);
  });

  it("sends from its own mail domain or a domain it verified; a domain deleted later falls back to the mail domain's address", async () => {
    const key = intruder.users.admin.apiKey;
    const own = await patchInbox(key, intruderInbox, { sendEmailsFrom: `team@${intruder.siteName}.mail.localhost` });
    expect(own.status, own.text).toBe(200);
    // the installation's own domain at the mail domain is listed, verified, and stays
    const ownDomain = (
      await api('/v2/maildomains.json', { key, query: { filter: { name: `${intruder.siteName}.mail.localhost` } } })
    ).body.maildomains[0];
    expect(ownDomain).toMatchObject({ verified: true });
    expectError(await api(`/v2/maildomains/${ownDomain.id}.json`, { method: 'DELETE', key }), 409, 'id');
    const mine = await verifiedMailDomain(key, `${intruder.siteName}.test`);
    const set = await patchInbox(key, intruderInbox, { sendEmailsFrom: `help@${intruder.siteName}.test` });
    expect(set.status, set.text).toBe(200);
    expect(set.body.inbox.unverifiedAddresses).not.toContain(`help@${intruder.siteName}.test`);

    const open = async (to: string) => {
      const opened = await api('/v2/tickets.json', {
        method: 'POST',
        key: intruder.users.agent.apiKey,
        body: { subject: 'Hello', inbox: intruderInbox, customer: { email: to }, message: 'Hi' },
      });
      expect(opened.status, opened.text).toBe(201);
      return eventually(async () => (await sentTo(to))[0]);
    };
    expect((await open(`first.${Date.now()}@customer.test`)).from).toMatchObject({
      email: `help@${intruder.siteName}.test`,
    });
    expect((await api(`/v2/maildomains/${mine.id}.json`, { method: 'DELETE', key })).status).toBe(204);
    const after = await open(`second.${Date.now()}@customer.test`);
    expect(after.from).toMatchObject({ email: `support@${intruder.siteName}.mail.localhost` });
  });
});
