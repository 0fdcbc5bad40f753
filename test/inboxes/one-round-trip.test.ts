// An inbox's create or update is one exchange with the database (one HTTP batch): its members, its
// default status checked, a new inbox offered the ticket types and custom fields that ask for
// inboxes made later, its addresses checked against its site and verified domains (the own domain
// listed among its mail domains), an update's password sealed to the inbox in the Worker; a refusal
// inside that exchange answers the same 4xx as ever and leaves nothing written. A new inbox with a
// password is two: its id is taken from the table's sequence first, the password sealed to it in
// the Worker, and the batch inserts the inbox with that id (docs/connection-strategy.md).
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { DEV_PM_TOKEN_KEY } from '../../scripts/worker-vars';
import { decryptToken, inboxSecretContext } from '../../src/lib/crypto';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { eventsSince, lastEventId, summary } from '../support/events';
import { withRoundTrips } from '../support/round-trips';

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;
let support: number;

beforeAll(async () => {
  site = await newInstallation('inbox-trips');
  other = await newInstallation('inbox-trips-other');
  admin = site.users.admin.apiKey;
  // the credential is looked up once, then remembered: the requests below are the write alone
  support = (await api('/v2/inboxes.json', { key: admin })).body.inboxes[0].id;
});

/** The request's answer and its database round trips, from its log line. */
const tripsOf = (path: string, method: string, body: unknown, query?: Record<string, string>) =>
  withRoundTrips(path, { key: admin, method, body, query });

/** Each body, as a create and as an update of the support inbox, is its 400 in one exchange; nothing is written. */
async function refusedInOneExchange(
  cases: ReadonlyArray<readonly [body: Record<string, unknown>, source: string, detail: string]>,
) {
  const mark = await lastEventId(site.id);
  for (const [body, source, detail] of cases) {
    for (const [path, method] of [
      ['/v2/inboxes.json', 'POST'],
      [`/v2/inboxes/${support}.json`, 'PATCH'],
    ] as const) {
      const { answer, trips } = await tripsOf(path, method, { inbox: { name: 'Trip refused', ...body } });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.errors).toEqual([{ code: 'invalid', source, detail }]);
      expect(trips).toBe(1);
    }
  }
  expect(await eventsSince(site.id, mark)).toEqual([]);
  expect(
    await rows(`SELECT count(*)::int AS n FROM inboxes WHERE installation_id = $1 AND name = 'Trip refused'`, [
      site.id,
    ]),
  ).toEqual([{ n: 0 }]);
}

describe('inboxes in one round trip', () => {
  it('creates an inbox with members, offered the custom fields that ask for inboxes made later, and updates it, in one exchange each', async () => {
    const field = (
      await api('/v2/customfields.json', {
        method: 'POST',
        key: admin,
        body: { customfield: { agentLabel: 'Trip joins', kind: 'text', inboxes: [{ id: support }] } },
      })
    ).body.customfield;
    const made = await tripsOf(
      '/v2/inboxes.json',
      'POST',
      {
        inbox: {
          name: 'Trip chat',
          localPart: 'trip-chat',
          ticketstatus: { id: 3 },
          users: [{ id: site.users.agent.id, meta: { access: 'restricted' } }],
        },
      },
      { includes: 'users' },
    );
    expect(made.answer.status, made.answer.text).toBe(201);
    expect(made.trips).toBe(1);
    const inbox = made.answer.body.inbox;
    expect(inbox.users).toEqual([{ id: site.users.agent.id, type: 'users', meta: { access: 'restricted' } }]);
    expect(
      await rows(`SELECT inbox_id FROM custom_field_inboxes WHERE custom_field_id = $1 ORDER BY inbox_id`, [field.id]),
    ).toEqual([{ inbox_id: support }, { inbox_id: inbox.id }]);

    const changed = await tripsOf(`/v2/inboxes/${inbox.id}.json`, 'PATCH', {
      inbox: { name: 'Trip chats', autoReplyEnabled: true, smtpPassword: null, users: [{ id: site.users.admin.id }] },
    });
    expect(changed.answer.status, changed.answer.text).toBe(200);
    expect(changed.trips).toBe(1);
    expect(changed.answer.body.inbox).toMatchObject({
      name: 'Trip chats',
      autoReplyEnabled: true,
      hasSmtpPassword: false,
    });
  });

  it("refuses another installation's status or teammate in the same exchange, writing nothing", async () => {
    const made = await api('/v2/ticketstatuses.json', {
      method: 'POST',
      key: other.users.admin.apiKey,
      body: { ticketstatus: { name: 'Theirs', code: 'waiting' } },
    });
    expect(made.status, made.text).toBe(201);
    const theirStatus = made.body.ticketstatus.id as number;
    const theirs = other.users.agent.id;
    await refusedInOneExchange([
      [{ ticketstatus: { id: theirStatus } }, 'inbox.ticketstatus', `no ticketstatuses ${theirStatus} here`],
      [{ users: [{ id: theirs }] }, 'inbox.users[0].id', `no users ${theirs} here`],
    ]);
  });

  it("names its addresses at the site's own mail domain and changes its password in one exchange; the own domain listed, verified, with its event", async () => {
    const own = `${site.siteName}.mail.localhost`;
    const made = await tripsOf('/v2/inboxes.json', 'POST', {
      inbox: { name: 'Trip mail', localPart: 'trip-mail', email: `trip@${own}`, aliases: [`trips@${own}`] },
    });
    expect(made.answer.status, made.answer.text).toBe(201);
    expect(made.trips).toBe(1);
    const id = made.answer.body.inbox.id as number;
    expect(
      await rows(
        `SELECT name, verified_at IS NOT NULL AS verified FROM mail_domains WHERE installation_id = $1 AND state = 'active'`,
        [site.id],
      ),
    ).toEqual([{ name: own, verified: true }]);

    const mark = await lastEventId(site.id);
    const changed = await tripsOf(`/v2/inboxes/${id}.json`, 'PATCH', {
      inbox: { sendEmailsFrom: `team@${own}`, smtpServer: 'smtp.trip.test', smtpPassword: 'trip-secret' },
    });
    expect(changed.answer.status, changed.answer.text).toBe(200);
    expect(changed.trips).toBe(1);
    expect(changed.answer.body.inbox).toMatchObject({ sendEmailsFrom: `team@${own}`, hasSmtpPassword: true });
    const [row] = await rows<{ sealed: string }>(
      'SELECT smtp_password_ciphertext AS sealed FROM inboxes WHERE id = $1',
      [id],
    );
    expect(await decryptToken(row!.sealed, DEV_PM_TOKEN_KEY, inboxSecretContext(site.id, id))).toBe('trip-secret');
    expect(summary(await eventsSince(site.id, mark))).toEqual(['inboxes:updated']);
  });

  it('lists a new own domain among the mail domains in the same exchange, with its created event', async () => {
    const fresh = await newInstallation('inbox-trips-fresh');
    const key = fresh.users.admin.apiKey;
    const inboxId = (await api('/v2/inboxes.json', { key })).body.inboxes[0].id as number;
    await rows(`DELETE FROM mail_domains WHERE installation_id = $1`, [fresh.id]);
    const mark = await lastEventId(fresh.id);
    const changed = await withRoundTrips(`/v2/inboxes/${inboxId}.json`, {
      key,
      method: 'PATCH',
      body: { inbox: { aliases: [`hello@${fresh.siteName}.mail.localhost`] } },
    });
    expect(changed.answer.status, changed.answer.text).toBe(200);
    expect(changed.trips).toBe(1);
    expect(
      await rows(`SELECT name FROM mail_domains WHERE installation_id = $1 AND verified_at IS NOT NULL`, [fresh.id]),
    ).toEqual([{ name: `${fresh.siteName}.mail.localhost` }]);
    expect(summary(await eventsSince(fresh.id, mark)).sort()).toEqual(['inboxes:updated', 'maildomains:created']);
  });

  it("refuses an address at another site's mail domain, or sending from a domain not verified, in the same exchange, writing nothing", async () => {
    const own = `${site.siteName}.mail.localhost`;
    await refusedInOneExchange([
      [
        { aliases: [`ok@${own}`, `sales@${other.siteName}.mail.localhost`] },
        'inbox.aliases[1]',
        `an address at mail.localhost must be at this helpdesk's own ${own} (such as sales@${own})`,
      ],
      [
        { email: 'x@mail.localhost' },
        'inbox.email',
        `an address at mail.localhost must be at this helpdesk's own ${own} (such as x@${own})`,
      ],
      [
        { email: 'help@unverified.test', sendEmailsFrom: 'ceo@unverified.test' },
        'inbox.sendEmailsFrom',
        `mail leaves only from an address at ${own} or on a domain this helpdesk verified (/v2/maildomains.json); unverified.test is not verified`,
      ],
    ]);
  });

  it('makes a new inbox with a password in two exchanges, the password sealed to the id the inbox is inserted with', async () => {
    const made = await tripsOf('/v2/inboxes.json', 'POST', {
      inbox: { name: 'Trip sealed', smtpServer: 'smtp.trip.test', smtpPassword: 'new-secret' },
    });
    expect(made.answer.status, made.answer.text).toBe(201);
    expect(made.trips).toBe(2);
    expect(made.answer.body.inbox).toMatchObject({ name: 'Trip sealed', hasSmtpPassword: true });
    expect(made.answer.body.inbox).not.toHaveProperty('smtpPassword');
    const id = made.answer.body.inbox.id as number;
    const [row] = await rows<{ sealed: string }>(
      'SELECT smtp_password_ciphertext AS sealed FROM inboxes WHERE id = $1',
      [id],
    );
    expect(row!.sealed).not.toContain('new-secret');
    expect(await decryptToken(row!.sealed, DEV_PM_TOKEN_KEY, inboxSecretContext(site.id, id))).toBe('new-secret');
    // the next inbox, with a password or without, takes the id after it: the sequence is the table's own
    const next = await tripsOf('/v2/inboxes.json', 'POST', { inbox: { name: 'Trip after' } });
    expect(next.answer.status, next.answer.text).toBe(201);
    expect(next.trips).toBe(1);
    expect(next.answer.body.inbox.id).toBeGreaterThan(id);
    // refused in the batch (a port without its server): nothing written, the reserved id left unused
    const before = await rows('SELECT count(*)::int AS n FROM inboxes WHERE installation_id = $1', [site.id]);
    const refused = await tripsOf('/v2/inboxes.json', 'POST', {
      inbox: { name: 'Trip refused', smtpPort: 25, smtpPassword: 'x' },
    });
    expect(refused.answer.status, refused.answer.text).toBe(400);
    expect(await rows('SELECT count(*)::int AS n FROM inboxes WHERE installation_id = $1', [site.id])).toEqual(before);
  });
});
