import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import type { Browser, BrowserContext } from 'playwright-core';
import { expect, inject } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { checkAnswer, checkedFetch } from '../support/contract';
import { TEST_PUBLIC_URL } from '../mail/limits';

/**
 * The Worker under test answers as `TEST_PUBLIC_URL` (its `PUBLIC_URL`, the issuer), as a
 * deployment behind its own domain does: requests to that address go to the Worker.
 */
export const toWorker = (url: string | URL) => String(url).replace(TEST_PUBLIC_URL, inject('workerUrl'));

/** oauth4webapi's options for every request: sent to the Worker, as a DNS entry would send them. */
export const clientOptions = {
  // the client's own requests (discovery, token, user info, revocation), their answers checked against the document too
  [oauth.customFetch]: (url: string, init: RequestInit) => checkedFetch(toWorker(url), init),
} as const;

/** The authorization server, discovered as a client discovers it (RFC 8414), checked by oauth4webapi. */
export async function discover(): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(TEST_PUBLIC_URL);
  return oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { ...clientOptions, algorithm: 'oauth2' }),
  );
}

export interface RegisteredApp {
  id: number;
  clientId: string;
  clientSecret: string | null;
}

/** An app registered by the installation's owner. */
export async function registerApp(
  site: SeededInstallation,
  properties: Record<string, unknown>,
): Promise<RegisteredApp> {
  const created = await api('/v2/oauthapps.json', {
    method: 'POST',
    key: site.users.owner.apiKey,
    body: { oauthapp: { name: 'Zap Sync', ...properties } },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.oauthapp;
}

/** A local page apps send the teammate back to: it records each arrival. */
export interface Callback {
  url: string;
  arrivals: URL[];
  close(): Promise<void>;
}

export async function startCallback(): Promise<Callback> {
  const arrivals: URL[] = [];
  const server: Server = createServer((request, response) => {
    arrivals.push(new URL(request.url ?? '/', `http://${request.headers.host}`));
    response.writeHead(200, { 'content-type': 'text/plain' }).end('back at the app');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    arrivals,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** What an authorize URL asks for, beyond the client. */
export interface AuthorizeAsk {
  redirectUri?: string;
  state?: string;
  scope?: string;
  codeChallenge?: string;
  responseType?: string;
}

export function authorizeUrl(as: oauth.AuthorizationServer, clientId: string, ask: AuthorizeAsk): URL {
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('response_type', ask.responseType ?? 'code');
  if (ask.redirectUri) url.searchParams.set('redirect_uri', ask.redirectUri);
  if (ask.state) url.searchParams.set('state', ask.state);
  if (ask.scope) url.searchParams.set('scope', ask.scope);
  if (ask.codeChallenge) {
    url.searchParams.set('code_challenge', ask.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
  }
  return url;
}

/**
 * A teammate in Chromium on the authorize page: enters `apiKey` (unless signed in by the cookie
 * of `context`), presses Allow or Deny, and lands on the app's callback, whose address is answered.
 */
export async function consentInBrowser(
  browser: Browser | BrowserContext,
  url: URL,
  callback: string,
  action: { apiKey?: string; decision?: 'allow' | 'deny' } = {},
): Promise<URL> {
  const context = 'newContext' in browser ? await browser.newContext() : browser;
  const page = await context.newPage();
  try {
    const shown = await page.goto(toWorker(url));
    expect(shown?.status()).toBe(200);
    if (action.apiKey !== undefined) await page.fill('#api_key', action.apiKey);
    await Promise.all([
      page.waitForURL((address) => address.href.startsWith(callback)),
      page.click(`button[value=${action.decision ?? 'allow'}]`),
    ]);
    return new URL(page.url());
  } finally {
    await page.close();
    if ('newContext' in browser) await context.close();
  }
}

/** A raw request to a protocol endpoint, form-encoded unless `json`. */
export async function post(
  path: string,
  parameters: Record<string, string>,
  options: { json?: boolean; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const url = inject('workerUrl') + path;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': options.json ? 'application/json' : 'application/x-www-form-urlencoded',
      ...options.headers,
    },
    body: options.json ? JSON.stringify(parameters) : new URLSearchParams(parameters).toString(),
  });
  // checked against the document, as `api()` checks its own answers; a body that is not JSON is its text
  const answer = await checkAnswer('POST', url, response);
  return { status: answer.status, headers: answer.headers, body: answer.body ?? (answer.text || undefined) };
}

export const basicAuth = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
