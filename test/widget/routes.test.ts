// The widget's routes over plain HTTP: the script and its caching, the demo page, the public
// form settings and their refusals, and the CORS of exactly the routes the widget calls.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';

let site: SeededInstallation;
const CUSTOMER = 'https://shop.example.com';
const PUBLIC_FIELDS = [
  'accentColor',
  'helpdocarticles',
  'isLiveChatEnabled',
  'liveChatWelcomeMessage',
  'name',
  'position',
  'theme',
  'triggerColor',
];

beforeAll(async () => {
  site = await newInstallation('widget-routes');
});

async function createForm(properties: Record<string, unknown> = {}): Promise<{ id: number; token: string }> {
  const created = await api('/v2/contactforms.json', {
    method: 'POST',
    key: site.users.owner.apiKey,
    body: { contactform: { name: 'Support', ...properties } },
  });
  expect(created.status, created.text).toBe(201);
  return { id: created.body.contactform.id, token: created.body.contactform.token };
}

const settings = (token: string, headers: Record<string, string> = {}) =>
  api(`/widget/forms/${token}.json`, { headers });

function startConversation(formToken: string, body: unknown, origin = CUSTOMER) {
  return api('/v2/conversations.json', { method: 'POST', key: formToken, headers: { origin }, body });
}

describe('GET /widget.js', () => {
  it('is JavaScript, cached for minutes and revalidated by its ETag', async () => {
    const script = await api('/widget.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=300');
    const etag = script.headers.get('etag');
    expect(etag).toMatch(/^(W\/)?"[^"]+"$/);
    expect(script.text).toContain('data-form-token');
    expect(() => new Function(script.text)).not.toThrow();

    const again = await api('/widget.js', { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    const stale = await api('/widget.js', { headers: { 'if-none-match': '"0-0"' } });
    expect(stale.status).toBe(200);
  });

  it('never hands text to the HTML parser', async () => {
    const { text } = await api('/widget.js');
    expect(text).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
  });
});

describe('GET /widget/demo.html', () => {
  it('embeds the widget of the form it is given, as the embed snippet says', async () => {
    const { token } = await createForm({ isLiveChatEnabled: true });
    const page = await api(`/widget/demo.html?form=${token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain(`<script src="/widget.js" data-form-token="${token}" async></script>`);
  });

  it('without a usable form token, explains itself and embeds nothing; nothing it is given reaches the page as markup', async () => {
    for (const query of ['', '?form=', '?form=%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E', `?form=${'a'.repeat(65)}`]) {
      const page = await api(`/widget/demo.html${query}`);
      expect(page.status, query).toBe(200);
      expect(page.text, query).not.toContain('<script');
      expect(page.text, query).not.toContain('alert(1)');
      expect(page.text, query).toContain('/widget/demo.html?form=FORM_TOKEN');
    }
  });
});

describe('GET /widget/forms/{formToken}.json', () => {
  it('answers exactly the public settings, for any origin, cacheable for a minute', async () => {
    const { token } = await createForm({
      name: 'Help',
      accentColor: '#AA0000',
      triggerColor: '#00aa00',
      theme: 'dark',
      position: 'bottom-left',
      isLiveChatEnabled: true,
      liveChatWelcomeMessage: 'Hello!',
    });
    const response = await settings(token, { origin: CUSTOMER });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      contactform: {
        name: 'Help',
        accentColor: '#aa0000',
        triggerColor: '#00aa00',
        theme: 'dark',
        position: 'bottom-left',
        isLiveChatEnabled: true,
        liveChatWelcomeMessage: 'Hello!',
        helpdocarticles: [],
      },
    });
    expect(Object.keys(response.body.contactform).sort()).toEqual(PUBLIC_FIELDS);
    expect(response.headers.get('cache-control')).toBe('public, max-age=60');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers a form without live chat too, saying so (the widget shows that chat is unavailable)', async () => {
    const { token } = await createForm();
    const response = await settings(token);
    expect(response.status).toBe(200);
    expect(response.body.contactform).toMatchObject({
      isLiveChatEnabled: false,
      liveChatWelcomeMessage: null,
      theme: 'light',
      position: 'bottom-right',
      accentColor: '#3b82f6',
    });
  });

  it('is a 404 for an unknown token, a deleted form, and a token of the wrong shape', async () => {
    const { id, token } = await createForm({ isLiveChatEnabled: true });
    const deleted = await api(`/v2/contactforms/${id}.json`, { method: 'DELETE', key: site.users.owner.apiKey });
    expect(deleted.status, deleted.text).toBeLessThan(300);
    expectError(await settings(token), 404, 'formToken', /no contact form has this token/);
    expectError(await settings('A'.repeat(32)), 404, 'formToken');
    for (const wrong of ['a.b', '%3Cscript%3E', 'x'.repeat(65), '%20', 'tok%00en']) {
      expectError(await settings(wrong), 404, 'formToken');
    }
  });

  it('is a 404 without the .json, on other methods, and below it', async () => {
    const { token } = await createForm({ isLiveChatEnabled: true });
    expectError(await api(`/widget/forms/${token}`), 404);
    expectError(await api(`/widget/forms/${token}.json`, { method: 'POST', body: {} }), 404);
    expectError(await api(`/widget/forms/${token}.json`, { method: 'DELETE' }), 404);
    expectError(await api(`/widget/forms/${token}/x.json`), 404);
    expectError(await api('/widget/forms/.json'), 404);
  });

  it('reveals nothing to an API key in place of a form token', async () => {
    expectError(await settings(site.users.owner.apiKey), 404, 'formToken');
  });
});

describe("POST /v2/conversations.json from a customer's site (CORS)", () => {
  it('answers the preflight without a credential and without touching anything', async () => {
    const preflight = await api('/v2/conversations.json', {
      method: 'OPTIONS',
      headers: {
        origin: CUSTOMER,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('authorization,content-type');
    expect(preflight.headers.get('access-control-max-age')).toBe('86400');
  });

  it('a live-chat form starts a conversation in its installation, readable cross-origin', async () => {
    const { id, token } = await createForm({ isLiveChatEnabled: true });
    const created = await startConversation(token, {
      conversation: { contact: { name: 'Visitor', email: 'visitor@example.com' } },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('access-control-allow-origin')).toBe('*');
    expect(created.body.conversation).toMatchObject({ contactForm: { id, type: 'contactforms' } });
    expect(created.body.conversation.socketUrl).toMatch(/^ws:\/\/.+\/v2\/rooms\/\d{24}\/socket$/);
    const [row] = await rows('SELECT installation_id, contact_form_id FROM conversations WHERE id = $1', [
      created.body.conversation.id,
    ]);
    expect(row).toEqual({ installation_id: site.id, contact_form_id: id });
  });

  it('refusals reach the widget too (with CORS): live chat off 403, unknown or deleted form 401, wrong types 400', async () => {
    const before = await rows('SELECT count(*)::int AS n FROM conversations WHERE installation_id = $1', [site.id]);
    const off = await createForm();
    const body = { conversation: { contact: { name: 'Visitor' } } };
    const refused = await startConversation(off.token, body);
    expectError(refused, 403, null);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');

    const gone = await createForm({ isLiveChatEnabled: true });
    await api(`/v2/contactforms/${gone.id}.json`, { method: 'DELETE', key: site.users.owner.apiKey });
    expect((await startConversation(gone.token, body)).status).toBe(401);
    expect((await startConversation('NoSuchFormTokenNoSuchFormToken00', body)).status).toBe(401);

    const live = await createForm({ isLiveChatEnabled: true });
    const wrong = [
      [{ conversation: { contact: { name: 42 } } }, 'conversation.contact.name'],
      [{ conversation: { contact: { name: 'Visitor', email: 'not an email' } } }, 'conversation.contact.email'],
      [{ conversation: { contact: 'Visitor' } }, 'conversation.contact'],
      [{ conversation: { contactId: 1 } }, 'conversation.contactId'],
      [{ conversation: { contact: { name: 'Visitor' }, inbox: 1 } }, 'conversation.inbox'],
    ] as const;
    for (const [payload, source] of wrong) {
      const response = await startConversation(live.token, payload);
      expectError(response, 400, source);
      expect(response.headers.get('access-control-allow-origin'), source).toBe('*');
    }
    expect(await rows('SELECT count(*)::int AS n FROM conversations WHERE installation_id = $1', [site.id])).toEqual(
      before,
    );
  });

  it("is CORS for that route and method only: the agents' list and other routes stay same-origin", async () => {
    const list = await api('/v2/conversations.json', { key: site.users.agent.apiKey, headers: { origin: CUSTOMER } });
    expect(list.status).toBe(200);
    expect(list.headers.get('access-control-allow-origin')).toBeNull();
    const companies = await api('/v2/companies.json', { key: site.users.agent.apiKey, headers: { origin: CUSTOMER } });
    expect(companies.headers.get('access-control-allow-origin')).toBeNull();
    const otherPreflight = await api('/v2/companies.json', {
      method: 'OPTIONS',
      headers: { origin: CUSTOMER, 'access-control-request-method': 'POST' },
    });
    expect(otherPreflight.headers.get('access-control-allow-origin')).toBeNull();
  });
});
