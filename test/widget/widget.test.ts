// The chat widget end to end, in a real headless Chromium against the Worker under test: a
// visitor chats on the demo page while an agent answers over the room's WebSocket API.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Locator, Page, WebSocketRoute } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { BROWSER_SETUP_TIMEOUT, launchBrowser } from '../support/browser';
import { messagePath } from '../support/conversation-messages';
import { newInstallation, rows } from '../support/db';
import { eventually, joinRoom, type RoomClient } from '../support/room';
import { setBilling } from '../ai/support';
import { newArticle, newHelpSite, planModel } from '../support/ai-model';

/** What the page's functions use of the browser's globals (the project's TypeScript has no DOM library). */
interface BrowserGlobals {
  getComputedStyle(element: unknown): { backgroundColor: string };
  localStorage: { getItem(key: string): string | null };
  __pwned?: boolean;
}

const SCREENSHOT = new URL('../../docs/widget.png', import.meta.url).pathname;
const WAIT = { timeout: 10_000 };

let browser: Browser;
let site: SeededInstallation;
const rooms: RoomClient[] = [];

beforeAll(async () => {
  [browser, site] = await Promise.all([launchBrowser(), newInstallation('widget')]);
}, BROWSER_SETUP_TIMEOUT);

afterAll(async () => {
  await Promise.all(rooms.map((room) => room.close()));
  await browser?.close();
});

async function createForm(properties: Record<string, unknown>): Promise<string> {
  const created = await api('/v2/contactforms.json', {
    method: 'POST',
    key: site.users.owner.apiKey,
    body: { contactform: { name: 'Acme Outdoor Supplies', ...properties } },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.contactform.token as string;
}

interface Visitor {
  page: Page;
  /** the widget's element: locators pierce its open shadow root */
  widget: Locator;
  /** uncaught errors in the page */
  errors: Error[];
  warnings: string[];
}

/** A fresh browser profile (nothing in localStorage) on the demo page of a form. */
async function visit(url: string): Promise<Visitor> {
  const context = await browser.newContext({
    viewport: { width: 800, height: 600 },
    deviceScaleFactor: 1,
    colorScheme: 'light',
    reducedMotion: 'reduce',
  });
  const page = await context.newPage();
  const errors: Error[] = [];
  const warnings: string[] = [];
  page.on('pageerror', (error) => errors.push(error));
  page.on('console', (message) => message.type() === 'warning' && warnings.push(message.text()));
  await page.goto(url);
  return { page, widget: page.locator('[data-helpdesk-widget]'), errors, warnings };
}

const demo = (formToken: string) => `${inject('workerUrl')}/widget/demo.html?form=${formToken}`;

async function startChat({ widget }: Visitor, name: string, email: string): Promise<void> {
  await widget.getByRole('button', { name: 'Open chat' }).click();
  await widget.getByLabel('Your name').fill(name);
  await widget.getByLabel('Email').fill(email);
  await widget.getByRole('button', { name: 'Start chat' }).click();
  await widget.getByLabel('Message').waitFor(WAIT);
}

/** Types a message and waits until the room has acknowledged it (the bubble gets the room's id). */
async function say({ widget }: Visitor, text: string): Promise<void> {
  await widget.getByLabel('Message').fill(text);
  await widget.getByLabel('Message').press('Enter');
  await widget.locator('.message.own[data-id]', { hasText: text }).waitFor(WAIT);
}

/** The agent finds the newest conversation of the installation, as an agent would, and joins its room. */
async function agentJoinsNewest(contactName: string): Promise<RoomClient> {
  const list = await api('/v2/conversations.json', {
    key: site.users.agent.apiKey,
    query: { orderBy: 'id', orderMode: 'desc', pageSize: 1, includes: 'contacts' },
  });
  expect(list.status, list.text).toBe(200);
  const [conversation] = list.body.conversations;
  expect(
    list.body.included.contacts.find((contact: { id: number }) => contact.id === conversation.contactId)?.name,
  ).toBe(contactName);
  const agent = await joinRoom(
    `${inject('workerUrl').replace(/^http/, 'ws')}/v2/rooms/${conversation.token}/socket`,
    site.users.agent.apiKey,
  );
  rooms.push(agent);
  return agent;
}

const bubbles = (widget: Locator) =>
  widget
    .locator('.message')
    .evaluateAll((items) =>
      items.map((item) => ({ own: item.classList.contains('own'), text: item.querySelector('.text')!.textContent })),
    );

describe('the chat widget on the demo page', () => {
  it("a visitor and an agent chat live: the welcome, the visitor's message, the agent's answer", async () => {
    const welcome = 'Hi there! Ask us anything about your order.';
    const token = await createForm({
      isLiveChatEnabled: true,
      liveChatWelcomeMessage: welcome,
      accentColor: '#0F766E',
      triggerColor: '#0f766e',
    });
    const visitor = await visit(demo(token));
    const { widget, page } = visitor;

    await widget.getByRole('button', { name: 'Open chat' }).waitFor(WAIT);
    expect(await widget.locator('.panel').isHidden()).toBe(true);
    await widget.getByRole('button', { name: 'Open chat' }).click();
    await widget.getByText(welcome).waitFor(WAIT);
    expect(await widget.locator('.title').textContent()).toBe('Acme Outdoor Supplies');
    // The form's colour, lower-cased by the API, reaches the header.
    expect(
      await widget
        .locator('.header')
        .evaluate((header) => (globalThis as unknown as BrowserGlobals).getComputedStyle(header).backgroundColor),
    ).toBe('rgb(15, 118, 110)');

    // No name: the widget asks for it and starts nothing.
    await widget.getByRole('button', { name: 'Start chat' }).click();
    await widget.getByText('Please tell us your name.').waitFor(WAIT);
    await widget.getByLabel('Your name').fill('Grace');
    await widget.getByLabel('Email').fill('grace@example.com');
    await widget.getByRole('button', { name: 'Start chat' }).click();
    await widget.getByLabel('Message').waitFor(WAIT);
    await say(visitor, 'Hi! My order #1042 has not arrived yet.');

    const agent = await agentJoinsNewest('Grace');
    const agentWelcome = await agent.next('welcome');
    expect(
      agentWelcome.history.map((message: { message: string; author: { type: string } }) => [
        message.author.type,
        message.message,
      ]),
    ).toEqual([['contact', 'Hi! My order #1042 has not arrived yet.']]);

    agent.send({ type: 'typing', typing: true });
    await widget.getByText('Agent Demo is typing…').waitFor(WAIT);
    agent.send({
      type: 'message',
      message: 'Sorry about that, Grace. It left our warehouse this morning and arrives on Friday.',
      clientId: 'agent-1',
    });
    const answer = widget.locator('.message.other', { hasText: 'arrives on Friday' });
    await answer.waitFor(WAIT);
    expect(await answer.locator('.who').textContent()).toBe('Agent Demo');
    expect(await widget.getByText('Agent Demo is typing…').isHidden()).toBe(true);

    await say(visitor, 'Great, thank you!');
    expect(await agent.next('message')).toMatchObject({
      clientId: 'agent-1',
      author: { type: 'agent', id: site.users.agent.id },
    });
    const thanks = await agent.next('message');
    expect(thanks).toMatchObject({
      message: 'Great, thank you!',
      author: { type: 'contact', id: agentWelcome.history[0].author.id },
    });
    expect(thanks.clientId).toMatch(/^w-/);

    expect(await bubbles(widget)).toEqual([
      { own: true, text: 'Hi! My order #1042 has not arrived yet.' },
      { own: false, text: 'Sorry about that, Grace. It left our warehouse this morning and arrives on Friday.' },
      { own: true, text: 'Great, thank you!' },
    ]);

    agent.send({ type: 'typing', typing: true });
    await widget.getByText('Agent Demo is typing…').waitFor(WAIT);
    if (process.env.UPDATE_SCREENSHOT === '1') {
      // The demo page prints the form's token, new each run: masked, so the picture only changes when the widget does.
      await page.locator('main').evaluate((main, formToken) => {
        main.innerHTML = main.innerHTML.split(formToken).join('FORM_TOKEN');
      }, token);
      await page.screenshot({ path: SCREENSHOT, animations: 'disabled', caret: 'hide' });
    }
    expect(visitor.errors).toEqual([]);
  });

  it('a reload rejoins the same conversation and shows its history; text is shown as text, never as HTML', async () => {
    const token = await createForm({ isLiveChatEnabled: true, liveChatWelcomeMessage: 'Welcome <b>back</b>' });
    const visitor = await visit(demo(token));
    const { widget, page } = visitor;
    await startChat(visitor, 'Ada <i>Lovelace</i>', 'ada@example.com');
    await widget.getByText('Welcome <b>back</b>').waitFor(WAIT);
    await say(visitor, 'First question');

    const agent = await agentJoinsNewest('Ada <i>Lovelace</i>');
    await agent.next('welcome');
    const hostile = '<img src="x" onerror="window.__pwned = true"><b>bold</b>';
    agent.send({ type: 'message', message: hostile, clientId: 'agent-html' });
    await widget.locator('.message.other', { hasText: hostile }).waitFor(WAIT);

    await page.reload();
    // The panel was open: it opens again, in the conversation, not on the start form.
    await widget.locator('.message.other', { hasText: hostile }).waitFor(WAIT);
    expect(await widget.getByLabel('Your name').count()).toBe(0);
    expect(await bubbles(widget)).toEqual([
      { own: true, text: 'First question' },
      { own: false, text: hostile },
    ]);
    expect(await widget.locator('img, b, i').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as BrowserGlobals).__pwned)).toBeUndefined();

    // Still the same room: the agent, still there, gets what the visitor says after the reload.
    await say(visitor, 'Second question, after a reload');
    const messages = [await agent.next('message'), await agent.next('message')];
    expect(messages.map((message) => message.message)).toEqual([hostile, 'Second question, after a reload']);
    expect(
      await page.evaluate(
        (key) =>
          Object.keys(JSON.parse((globalThis as unknown as BrowserGlobals).localStorage.getItem(key) ?? '{}')).sort(),
        `helpdesk-widget:${token}`,
      ),
    ).toEqual(['open', 'socketUrl', 'token']);
    expect(visitor.errors).toEqual([]);
  });

  it("a teammate's corrections and deletions through the API show in the widget: live, after a dropped connection, and after a reload", async () => {
    const token = await createForm({ isLiveChatEnabled: true });
    const visitor = await visit(demo(token));
    const { widget, page } = visitor;
    // The widget's socket passes through a route the test can drop, and hold from reconnecting, as a network would.
    const sockets: WebSocketRoute[] = [];
    let held: Promise<void> = Promise.resolve();
    await page.routeWebSocket(/\/v2\/rooms\//, async (socket) => {
      sockets.push(socket);
      await held;
      socket.connectToServer();
    });
    await startChat(visitor, 'Edith', 'edith@example.com');
    const said = ['My order #77 is late', 'My card is 4111 1111 1111 1111', 'Wher is it?', 'It was a gift'];
    for (const text of said) await say(visitor, text);
    const agent = await agentJoinsNewest('Edith');
    await agent.next('welcome');
    const stored = await eventually(async () => {
      const found = await rows<{ id: number; message: string }>(
        'SELECT id, message FROM conversation_messages WHERE installation_id = $1 AND message = ANY($2) ORDER BY id',
        [site.id, said],
      );
      return found.length === said.length ? found : undefined;
    });
    const [order, card, typo, gift] = stored.map((row) => messagePath(row.id));
    const remove = async (path: string) =>
      expect((await api(path, { method: 'DELETE', key: site.users.agent.apiKey })).status).toBe(204);
    const correct = async (path: string, message: string) => {
      const response = await api(path, {
        method: 'PATCH',
        key: site.users.agent.apiKey,
        body: { conversationmessage: { message } },
      });
      expect(response.status, response.text).toBe(200);
    };

    // Live: the card number goes, the typo is corrected.
    await remove(card!);
    await correct(typo!, 'Where is it?');
    await widget.locator('.message', { hasText: '4111' }).waitFor({ state: 'detached', ...WAIT });
    await widget.locator('.message', { hasText: 'Where is it?' }).waitFor(WAIT);

    // Away: the connection drops and stays down until the room has the next changes; the welcome brings them.
    let reconnect!: () => void;
    held = new Promise((resolve) => (reconnect = resolve));
    await sockets.at(-1)!.close();
    await widget.getByText('Reconnecting…').waitFor(WAIT);
    await remove(order!);
    await correct(gift!, 'It was a gift for my mother');
    await agent.next('deleted', 10_000);
    await agent.next('edited', 10_000);
    await agent.next('deleted', 10_000);
    await agent.next('edited', 10_000);
    reconnect();
    await widget.locator('.message', { hasText: 'for my mother' }).waitFor(WAIT);
    const now = [
      { own: true, text: 'Where is it?' },
      { own: true, text: 'It was a gift for my mother' },
    ];
    expect(await bubbles(widget)).toEqual(now);

    await page.reload();
    await widget.locator('.message', { hasText: 'for my mother' }).waitFor(WAIT);
    expect(await bubbles(widget)).toEqual(now);
    expect(visitor.errors).toEqual([]);
  });

  it('when an agent closes the conversation the widget says so, and the visitor may start a new one', async () => {
    const token = await createForm({ isLiveChatEnabled: true });
    const visitor = await visit(demo(token));
    const { widget } = visitor;
    await startChat(visitor, 'Closer', 'closer@example.com');
    await say(visitor, 'Thanks, that was all');
    const list = await api('/v2/conversations.json', {
      key: site.users.agent.apiKey,
      query: { orderBy: 'id', orderMode: 'desc', pageSize: 1 },
    });
    const closing = await api(`/v2/conversations/${list.body.conversations[0].id}.json`, {
      method: 'PATCH',
      key: site.users.agent.apiKey,
      body: { conversation: { status: 'closed' } },
    });
    expect(closing.status, closing.text).toBe(200);

    await widget.getByText('This conversation has ended.').waitFor(WAIT);
    expect(await widget.getByLabel('Message').isDisabled()).toBe(true);
    await widget.getByRole('button', { name: 'Start a new conversation' }).click();
    await widget.getByLabel('Your name').waitFor(WAIT);
    await widget.getByLabel('Your name').fill('Closer again');
    await widget.getByLabel('Email').fill('closer@example.com');
    await widget.getByRole('button', { name: 'Start chat' }).click();
    await say(visitor, 'One more thing');
    expect(await bubbles(widget)).toEqual([{ own: true, text: 'One more thing' }]);
    const newest = await api('/v2/conversations.json', {
      key: site.users.agent.apiKey,
      query: { orderBy: 'id', orderMode: 'desc', pageSize: 1 },
    });
    expect(newest.body.conversations[0].id).toBeGreaterThan(list.body.conversations[0].id);
    expect(visitor.errors).toEqual([]);
  });

  it("the form's AI assistant answers the visitor in the widget, its words streaming in, and hands over when the help centre has no answer", async () => {
    await setBilling(site.id, { anchor: new Date().toISOString().slice(0, 10), interval: 'month', allowance: 100 });
    const owner = site.users.owner.apiKey;
    await newArticle(owner, await newHelpSite(owner, { publicSiteEnabled: true }), {
      status: 'published',
      title: 'Waterproofing a rucksack',
      contents: '<p>Spray the rucksack with the waterproofing spray and let it dry overnight.</p>',
    });
    const token = await createForm({ isLiveChatEnabled: true, aiAssistant: true, aiWaitSeconds: 0 });
    // slow words, so the widget can be seen writing them
    const word = `zqwidget${Date.now().toString(36)}`;
    await planModel(word, [{ chunkDelayMs: 120 }]);

    const visitor = await visit(demo(token));
    const { widget } = visitor;
    await startChat(visitor, 'Ruth', 'ruth@example.com');
    await say(visitor, `How do I waterproof my rucksack? ${word}`);
    const writing = widget.locator('.message.other.streaming');
    await writing.waitFor(WAIT);
    expect(await writing.locator('.who').textContent()).toBe('Assistant');
    const partial = await writing.locator('.text').textContent();
    const answer = widget.locator('.message.other[data-id]', {
      hasText: 'Waterproofing a rucksack explains what to do.',
    });
    await answer.waitFor(WAIT);
    expect(partial!.length).toBeGreaterThan(0);
    expect((await answer.locator('.text').textContent())!.startsWith(partial!)).toBe(true);
    expect(await widget.locator('.streaming').count()).toBe(0);
    expect(await answer.locator('.who').textContent()).toBe('Assistant');
    expect(await answer.locator('.text').textContent()).not.toContain('[A');

    // Nothing in the help centre answers this: a notice says a teammate will.
    const other = await visit(demo(token));
    await startChat(other, 'Sam', 'sam@example.com');
    await say(other, 'Can I pay with a cheque?');
    await other.widget.locator('.message.system', { hasText: 'A teammate will answer you here' }).waitFor(WAIT);
    expect(await other.widget.locator('.message.other').count()).toBe(0);
    expect([...visitor.errors, ...other.errors]).toEqual([]);
  });

  it('the close button hides the panel and the launcher brings it back as it was', async () => {
    const token = await createForm({ isLiveChatEnabled: true, liveChatWelcomeMessage: 'Hello' });
    const { widget } = await visit(demo(token));
    await widget.getByRole('button', { name: 'Open chat' }).click();
    await widget.getByLabel('Your name').fill('Half typed');
    await widget.getByRole('button', { name: 'Close chat' }).click();
    expect(await widget.locator('.panel').isHidden()).toBe(true);
    await widget.getByRole('button', { name: 'Open chat' }).click();
    expect(await widget.getByLabel('Your name').inputValue()).toBe('Half typed');
  });

  it('a form without live chat says so and offers no chat', async () => {
    const token = await createForm({ isLiveChatEnabled: false, liveChatWelcomeMessage: 'You should not see this' });
    const visitor = await visit(demo(token));
    const { widget } = visitor;
    await widget.getByRole('button', { name: 'Open chat' }).click();
    await widget.getByText('Live chat is not available right now. Please come back later.').waitFor(WAIT);
    expect(await widget.getByText('You should not see this').count()).toBe(0);
    expect(await widget.locator('input, textarea, form').count()).toBe(0);
    expect(visitor.errors).toEqual([]);
  });

  it('a form whose live chat is turned off after the page loaded: starting a chat says it is unavailable', async () => {
    const token = await createForm({ isLiveChatEnabled: true });
    const visitor = await visit(demo(token));
    const { widget } = visitor;
    await widget.getByRole('button', { name: 'Open chat' }).click();
    await widget.getByLabel('Your name').fill('Late');
    await widget.getByLabel('Email').fill('late@example.com');
    const forms = await api('/v2/contactforms.json', { key: site.users.owner.apiKey, query: { filter: { token } } });
    const off = await api(`/v2/contactforms/${forms.body.contactforms[0].id}.json`, {
      method: 'PATCH',
      key: site.users.owner.apiKey,
      body: { contactform: { isLiveChatEnabled: false } },
    });
    expect(off.status, off.text).toBe(200);
    await widget.getByRole('button', { name: 'Start chat' }).click();
    await widget.getByText('Live chat is not available right now. Please come back later.').waitFor(WAIT);
    expect(await widget.locator('textarea').count()).toBe(0);
  });

  it("a 201 it cannot read (a proxy's page) leaves the form usable: it says so, and starting again works", async () => {
    const token = await createForm({ isLiveChatEnabled: true });
    const visitor = await visit(demo(token));
    const { page, widget } = visitor;
    // the first start is answered by something between the page and the API, not by the API
    await page.route('**/v2/conversations.json', (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({ status: 201, contentType: 'text/html', body: '<html>Created, somewhere</html>' })
        : route.fallback(),
    );
    await widget.getByRole('button', { name: 'Open chat' }).click();
    await widget.getByLabel('Your name').fill('Proxied');
    await widget.getByLabel('Email').fill('proxied@example.com');
    await widget.getByRole('button', { name: 'Start chat' }).click();
    await widget.getByText('Something went wrong; please try again.').waitFor(WAIT);
    expect(await widget.getByRole('button', { name: 'Start chat' }).isEnabled()).toBe(true);
    await page.unroute('**/v2/conversations.json');
    await widget.getByRole('button', { name: 'Start chat' }).click();
    await widget.getByLabel('Message').waitFor(WAIT);
    expect(visitor.errors).toEqual([]);
  });

  it('an unknown form token shows nothing and says why in the console', async () => {
    const visitor = await visit(demo('NoSuchFormTokenNoSuchFormToken00'));
    await eventually(async () =>
      visitor.warnings.some((text) => text.includes('no contact form has the token')) ? true : undefined,
    );
    expect(await visitor.widget.count()).toBe(0);
    expect(visitor.errors).toEqual([]);
  });
});

describe('the widget embedded on another origin', () => {
  let server: Server;
  let customerSite: string;

  beforeAll(async () => {
    // A customer's website: another origin (another port) than the Worker's.
    server = createServer((request, response) => {
      const formToken = new URL(request.url ?? '/', 'http://x').searchParams.get('form') ?? '';
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(
        `<!doctype html><title>Customer</title><p>Our shop</p><script src="${inject('workerUrl')}/widget.js" data-form-token="${formToken.replace(/[^\w-]/g, '')}" async></script>`,
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    customerSite = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect(customerSite).not.toBe(inject('workerUrl'));
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('loads the settings, starts a conversation cross-origin (CORS) and chats', async () => {
    const token = await createForm({ isLiveChatEnabled: true, liveChatWelcomeMessage: 'Hello from across origins' });
    const visitor = await visit(`${customerSite}/?form=${token}`);
    await startChat(visitor, 'Cross Origin', 'cross@example.com');
    await visitor.widget.getByText('Hello from across origins').waitFor(WAIT);
    await say(visitor, 'Can you hear me from here?');
    const agent = await agentJoinsNewest('Cross Origin');
    expect((await agent.next('welcome')).history.map((message: { message: string }) => message.message)).toEqual([
      'Can you hear me from here?',
    ]);
    expect(visitor.errors).toEqual([]);
  });
});
