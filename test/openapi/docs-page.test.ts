// The API reference page (`GET /v2/docs`, Scalar over the OpenAPI document) rendered in a real
// headless Chromium against the Worker under test, with nothing fetched from anywhere else.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api } from '../support/api';
import { BROWSER_SETUP_TIMEOUT, launchBrowser } from '../support/browser';

const WAIT = { timeout: 20_000 };
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
}, BROWSER_SETUP_TIMEOUT);

afterAll(async () => {
  await browser?.close();
});

describe('GET /v2/docs', () => {
  it('is a public HTML page that loads its script from this service', async () => {
    const response = await api('/v2/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    const script = /<script src="([^"]+)"/.exec(response.text)?.[1];
    expect(script).toMatch(/^\/v2\/docs\/scalar-[\d.]+\.js$/);
    const served = await api(script!);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/text\/javascript/);
    expect(served.headers.get('cache-control')).toMatch(/immutable/);
    expect(served.text.length).toBeGreaterThan(1_000_000);
  });

  it('renders the reference in a browser: the companies operations, their parameters, and search', async () => {
    const page = await browser.newPage();
    const foreign: string[] = [];
    const errors: string[] = [];
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === '127.0.0.1' || url.protocol === 'data:') return route.continue();
      foreign.push(url.href);
      return route.abort();
    });
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    try {
      await page.goto(`${inject('workerUrl')}/v2/docs#tag/companies/GET/v2/companies.json`);
      // The companies group is there, with its operations by their summaries.
      const section = page.locator('[id="api-1/tag/companies/GET/v2/companies.json"]');
      await section.locator('h3', { hasText: 'List companies' }).waitFor(WAIT);
      const text = await section.innerText();
      expect(text).toContain('filter');
      expect(text).toContain('pageSize');
      await page
        .getByRole('button', { name: /Companies/ })
        .first()
        .waitFor(WAIT);
      const links = page.locator('a[href^="#tag/companies/"]');
      await links.first().waitFor(WAIT);
      const operations = await links.allInnerTexts();
      for (const summary of [
        'List companies',
        'Create a company',
        'Get a company',
        'Delete every company the filter selects',
      ]) {
        expect(
          operations.some((label) => label.includes(summary)),
          `${summary} in ${operations.join(' | ')}`,
        ).toBe(true);
      }
      // Search finds an operation by its summary.
      await page.keyboard.press('Control+k');
      await page.keyboard.type('Create a company');
      await page.getByText('Create a company').first().waitFor(WAIT);
      expect(foreign).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);
});
