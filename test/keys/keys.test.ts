// The keys made from PM_TOKEN_KEY (src/lib/crypto/keys.ts): subject tokens, survey links and
// sealed secrets each under a key of their own, derived by HKDF as the docs say. A token made
// with another use's key, or with the raw secret for another purpose, names nothing; tokens
// mailed before the keys were derived still work (the transition), and so do secrets sealed
// before (`v1.`), while new ones are sealed as `v2.` under the derived key.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_PM_TOKEN_KEY } from '../../scripts/worker-vars';
import type { SeededInstallation } from '../../scripts/seed';
import {
  decryptToken,
  encryptToken,
  inboxSecretContext,
  legacyInboxSecretContext,
  pmTokenContext,
  webhookTokenContext,
} from '../../src/lib/crypto';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { eventually } from '../support/room';
import { send, sentTo } from '../mail/support';
import { receiver, sign, TOKEN } from '../webhooks/receiver';

const SOLVED = 5;
const secret = Buffer.from(DEV_PM_TOKEN_KEY, 'base64');

/** The first `hexChars` of HMAC-SHA256 of `text` under the key HKDF-SHA256 derives with `info` (empty salt), as documented. */
async function derivedHex(info: string, text: string, hexChars: number): Promise<string> {
  const base = await crypto.subtle.importKey('raw', secret, 'HKDF', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: new TextEncoder().encode(info) },
    base,
    256,
  );
  return createHmac('sha256', Buffer.from(bits)).update(text).digest('hex').slice(0, hexChars);
}
/** The same under the secret's text itself: how tokens were made before the keys were derived. */
const rawHex = (text: string, hexChars: number) =>
  createHmac('sha256', DEV_PM_TOKEN_KEY).update(text).digest('hex').slice(0, hexChars);

/** A secret sealed as it was before the keys were derived: `v1.`, AES-GCM under the secret's own bytes. */
async function sealedAsBefore(plain: string, context: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', secret, { name: 'AES-GCM' }, false, ['encrypt']);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: new TextEncoder().encode(context) },
    key,
    new TextEncoder().encode(plain),
  );
  return `v1.${Buffer.from(iv).toString('base64')}.${Buffer.from(sealed).toString('base64')}`;
}

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;
let address: string;
let ticket: number;
let survey: number;
let subjectToken: string;
const customer = `keys.${Date.now().toString(36)}@customer.test`;
const hook = receiver();

const ticketsOf = (installationId: number) =>
  rows<{ id: number; subject: string }>('SELECT id, subject FROM tickets WHERE installation_id = $1 ORDER BY id', [
    installationId,
  ]);
const entriesOn = async (ticketId: number) =>
  (await rows('SELECT id FROM ticket_messages WHERE ticket_id = $1', [ticketId])).length;

/** Mails `subject` to `to` from the customer: the ticket it landed on. */
async function mailed(subject: string, to = address, installationId = site.id): Promise<number> {
  const sent = await send({ from: customer, to, subject, body: subject });
  expect(sent.status, sent.text).toBe(200);
  return (await ticketsOf(installationId)).find((t) => t.subject === subject)?.id ?? ticket;
}

beforeAll(async () => {
  site = await newInstallation('keys');
  other = await newInstallation('keys-other');
  admin = site.users.admin.apiKey;
  const inbox = (await api('/v2/inboxes.json', { key: admin })).body.inboxes[0].id;
  expect(
    (
      await api(`/v2/inboxes/${inbox}.json`, {
        method: 'PATCH',
        key: admin,
        body: { inbox: { happinessRatingEnabled: true } },
      })
    ).status,
  ).toBe(200);
  address = `support@${site.siteName}.mail.localhost`;
  const made = await api('/v2/tickets.json', {
    method: 'POST',
    key: admin,
    body: { ticket: { subject: 'Keyed', inbox, customer: { email: customer }, message: 'Hi' } },
  });
  expect(made.status, made.text).toBe(201);
  ticket = made.body.ticket.id;
  const solved = await api(`/v2/tickets/${ticket}/messages.json`, {
    method: 'POST',
    key: admin,
    body: { message: 'Done', status: { id: SOLVED } },
  });
  expect(solved.status, solved.text).toBe(201);
  const [mail] = await eventually(async () => {
    const sent = await sentTo(customer);
    return sent.length ? sent : undefined;
  }, 20_000);
  subjectToken = /\[#\d+-[0-9a-f]{10}\]/.exec(mail!.subject)![0];
  const link = (await api(`/v2/tickets/${ticket}/happinesssurvey.json`, { key: admin })).body.happinesssurvey;
  survey = link.id;
});

afterAll(async () => {
  await hook.close();
});

describe('tokens', () => {
  it('are made with the key of their own use, as documented: the subject token and the survey link', async () => {
    expect(subjectToken).toBe(
      `[#${ticket}-${await derivedHex('helpdesk/subject-token/v1', `ticket-mail:${ticket}`, 10)}]`,
    );
    const link = (await api(`/v2/tickets/${ticket}/happinesssurvey.json`, { key: admin })).body.happinesssurvey;
    expect(new URL(link.url).pathname).toBe(
      `/v2/happiness/${survey}-${await derivedHex('helpdesk/survey-token/v1', `happiness-survey:${survey}`, 40)}.json`,
    );
    // the mailed token threads the reply back
    const before = await entriesOn(ticket);
    expect(await mailed(`Re: Keyed ${subjectToken}`)).toBe(ticket);
    expect(await entriesOn(ticket)).toBe(before + 1);
  });

  it("made with another use's key, or with the raw secret for another purpose, name no ticket: the mail makes a new one", async () => {
    const before = await entriesOn(ticket);
    const forged = {
      'the survey key': await derivedHex('helpdesk/survey-token/v1', `ticket-mail:${ticket}`, 10),
      'a survey token cut short': await derivedHex('helpdesk/survey-token/v1', `happiness-survey:${ticket}`, 10),
      'the sealing key': await derivedHex('helpdesk/aes-gcm/v1', `ticket-mail:${ticket}`, 10),
      'the raw secret for surveys': rawHex(`happiness-survey:${ticket}`, 10),
    };
    for (const [how, hex] of Object.entries(forged)) {
      const subject = `Re: Keyed, by ${how} [#${ticket}-${hex}]`;
      const landed = await mailed(subject);
      expect(landed, how).not.toBe(ticket);
      expect((await ticketsOf(site.id)).find((t) => t.id === landed)?.subject, how).toBe(subject);
    }
    expect(await entriesOn(ticket)).toBe(before);
  });

  it("of a subject, or made with the raw secret for subjects, open no survey (404); a survey's does", async () => {
    const path = (hex: string) => `/v2/happiness/${survey}-${hex}.json`;
    for (const hex of [
      await derivedHex('helpdesk/subject-token/v1', `happiness-survey:${survey}`, 40),
      await derivedHex('helpdesk/subject-token/v1', `ticket-mail:${survey}`, 40),
      await derivedHex('helpdesk/aes-gcm/v1', `happiness-survey:${survey}`, 40),
      rawHex(`ticket-mail:${survey}`, 40),
    ]) {
      expectError(await api(path(hex)), 404);
      expectError(await api(path(hex), { method: 'POST', body: { option: 1 } }), 404);
    }
    expect(
      (await api(path(await derivedHex('helpdesk/survey-token/v1', `happiness-survey:${survey}`, 40)))).status,
    ).toBe(200);
  });

  it('mailed before the keys were derived still work, for the transition: a subject threads, a survey link opens', async () => {
    const before = await entriesOn(ticket);
    expect(await mailed(`Re: Keyed, an old mail [#${ticket}-${rawHex(`ticket-mail:${ticket}`, 10)}]`)).toBe(ticket);
    expect(await entriesOn(ticket)).toBe(before + 1);
    const old = await api(`/v2/happiness/${survey}-${rawHex(`happiness-survey:${survey}`, 40)}.json`);
    expect(old.status, old.text).toBe(200);
    expect(old.body.survey.ticket.id).toBe(ticket);
  });

  it("of one installation's ticket, genuine, thread nothing into it when mailed to another installation's inbox", async () => {
    const before = await entriesOn(ticket);
    const subject = `Re: Keyed, sent elsewhere ${subjectToken}`;
    const landed = await mailed(subject, `support@${other.siteName}.mail.localhost`, other.id);
    expect(landed).not.toBe(ticket);
    expect((await ticketsOf(other.id)).map((t) => t.id)).toContain(landed);
    expect(await entriesOn(ticket)).toBe(before);
  });
});

describe('secrets at rest', () => {
  it('sealed before the keys were derived (v1) still open; new ones are v2, which the raw secret does not open', async () => {
    const pm = await sealedAsBefore('pm-token', pmTokenContext(site.id));
    expect(await decryptToken(pm, DEV_PM_TOKEN_KEY, pmTokenContext(site.id))).toBe('pm-token');
    expect(await decryptToken(pm, DEV_PM_TOKEN_KEY, pmTokenContext(other.id))).toBeUndefined();
    // an inbox's password of then was bound to its installation only
    const password = await sealedAsBefore('smtp-password', legacyInboxSecretContext(site.id));
    expect(
      await decryptToken(password, DEV_PM_TOKEN_KEY, inboxSecretContext(site.id, 1), legacyInboxSecretContext(site.id)),
    ).toBe('smtp-password');
    const sealed = await encryptToken('pm-token', DEV_PM_TOKEN_KEY, pmTokenContext(site.id));
    expect(sealed).toMatch(/^v2\./);
    expect(
      await decryptToken(sealed.replace(/^v2\./, 'v1.'), DEV_PM_TOKEN_KEY, pmTokenContext(site.id)),
    ).toBeUndefined();
  });

  it('a webhook endpoint whose token was sealed before still signs its deliveries with it', async () => {
    const made = await api('/v2/webhookendpoints.json', {
      method: 'POST',
      key: admin,
      body: {
        webhookendpoint: { url: await hook.url, token: 'a-token-set-some-time-ago', allEvents: false },
        included: { webhookendpointevents: [{ code: 'tag.created' }] },
      },
    });
    expect(made.status, made.text).toBe(201);
    await rows('UPDATE webhook_endpoints SET token = $1 WHERE id = $2', [
      await sealedAsBefore(TOKEN, webhookTokenContext(site.id)),
      made.body.webhookendpoint.id,
    ]);
    expect(
      (await api('/v2/tags.json', { method: 'POST', key: admin, body: { tag: { name: 'sealed-before' } } })).status,
    ).toBe(201);
    const delivered = await eventually(async () => hook.requests.find((r) => r.json.tag?.name === 'sealed-before'));
    expect(delivered.headers['x-desk-signature']).toBe(sign(delivered.body));
  });
});
