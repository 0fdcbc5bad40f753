// A captured delivery played again: a receiver that verifies as docs/resources/webhookendpoints.md
// says (its very code block, run here) takes the delivery as sent, and refuses it played again
// later, with its timestamp moved to now, under a new delivery id, or with its body changed.
// The platform's body-only X-Desk-Signature cannot tell a replay: the docs say not to rely on it.
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation } from '../support/db';
import { eventually } from '../support/room';
import { receiver, sign, TOKEN, type Received } from './receiver';

type Verify = (rawBody: string, headers: Received['headers'], token: string, toleranceSeconds?: number) => boolean;

/** The documented recipe, loaded from the docs as a reader would copy it. */
async function documentedVerify(): Promise<Verify> {
  const docs = readFileSync(new URL('../../docs/resources/webhookendpoints.md', import.meta.url), 'utf8');
  const block = /```js\n([\s\S]*?function verify[\s\S]*?)```/.exec(docs)?.[1];
  expect(block, 'the docs carry the verification recipe').toBeDefined();
  const file = join(tmpdir(), `webhook-verify-${process.pid}-${Date.now()}.mjs`);
  writeFileSync(file, `${block}\nexport { verify };\n`);
  try {
    return (await import(pathToFileURL(file).href)).verify as Verify;
  } finally {
    unlinkSync(file);
  }
}

let site: SeededInstallation;
let verify: Verify;
const hook = receiver();

beforeAll(async () => {
  verify = await documentedVerify();
  site = await newInstallation('webhook-replay');
});

afterEach(() => {
  vi.useRealTimers();
});

afterAll(async () => {
  await hook.close();
});

describe('a receiver verifying as documented', () => {
  it('takes a delivery as sent, and refuses it played again late, re-timed, re-numbered or changed', async () => {
    const admin = site.users.admin.apiKey;
    const made = await api('/v2/webhookendpoints.json', {
      method: 'POST',
      key: admin,
      body: { webhookendpoint: { url: await hook.url, token: TOKEN } },
    });
    expect(made.status, made.text).toBe(201);
    const inbox = (await api('/v2/inboxes.json', { key: admin })).body.inboxes[0].id;
    const ticket = await api('/v2/tickets.json', {
      method: 'POST',
      key: admin,
      body: { ticket: { subject: 'Replayed', inbox, customer: { email: 'replay@webhooks.test' }, message: 'Hi' } },
    });
    expect(ticket.status, ticket.text).toBe(201);
    const captured = await eventually(async () =>
      hook.requests.find((r) => r.json.ticket?.id === ticket.body.ticket.id),
    );
    const { headers, body } = captured;

    expect(verify(body, headers, TOKEN)).toBe(true);
    expect(verify(body, headers, 'another-token-of-some-length')).toBe(false);

    // the same bytes played again ten minutes later: too old
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime((Number(headers['x-desk-timestamp']) + 600) * 1000);
    expect(verify(body, headers, TOKEN)).toBe(false);
    // with the timestamp moved to now: the timestamped signature no longer matches
    const now = String(Math.floor(Date.now() / 1000));
    expect(verify(body, { ...headers, 'x-desk-timestamp': now }, TOKEN)).toBe(false);
    vi.useRealTimers();

    // within the window under a fresh delivery id (to slip past de-duplication): no match either
    expect(verify(body, { ...headers, 'x-desk-delivery': crypto.randomUUID() }, TOKEN)).toBe(false);
    // nor a body changed under the headers
    expect(verify(body.replace('Replayed', 'Replaced'), headers, TOKEN)).toBe(false);

    // what the docs warn of: the platform's signature covers the body alone, so it matches any replay
    expect(headers['x-desk-signature']).toBe(sign(body));
  });
});
