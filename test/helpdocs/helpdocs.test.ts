// Help docs as the platform's client has them (sites, categories, articles at its paths and
// wrappers), full-text search, the public help centre read without a credential, and articles
// linked from tickets and contact forms.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { checkAnswer } from '../support/contract';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { eventsOf } from '../support/events';
import { eventually } from '../support/room';
import { SDK_HEADERS, SDK_INCLUDED } from '../support/sdk';

let site: SeededInstallation;
let other: SeededInstallation;
let owner: string;
let agent: string;

const SITES = '/v2/helpdocssites.json';
const CATEGORIES = '/v2/helpdocssites/helpdoccategories.json';
const ARTICLES = '/v2/helpdocssites/helpdocarticles.json';
const article = (id: number) => `/v2/helpdocssites/helpdocarticles/${id}.json`;

let subdomain: string;
let helpSite: number;
let billing: number;
let published: number;

beforeAll(async () => {
  [site, other] = await Promise.all([newInstallation('helpdocs'), newInstallation('helpdocs-other')]);
  owner = site.users.owner.apiKey;
  agent = site.users.agent.apiKey;
  subdomain = `acme-help-${site.id}`;
});

async function createArticle(body: Record<string, unknown>, key = agent) {
  const created = await api(ARTICLES, {
    method: 'POST',
    key,
    body: { helpDocArticle: { helpdocsite: { id: helpSite, type: 'helpdocssites' }, ...body } },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.helpDocArticle;
}

/** A public request: no credential at all (its answer checked against the document, as `api()` checks). */
async function publicGet(path: string) {
  const url = inject('workerUrl') + path;
  return checkAnswer('GET', url, await fetch(url));
}

describe('sites', () => {
  it('are made by admins, wrapped as the platform client reads them', async () => {
    expectError(await api(SITES, { method: 'POST', key: agent, body: { helpdocssite: { name: 'Nope' } } }), 403);
    const created = await api(SITES, {
      method: 'POST',
      key: owner,
      body: {
        helpdocssite: {
          name: 'Acme Help',
          subdomain: subdomain.toUpperCase(),
          description: 'Answers',
          linkColor: '#FF0000',
          stats: { articleCount: 3 },
          contributors: [],
        },
        included: {},
        meta: {},
      },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.helpdocssite).toMatchObject({
      name: 'Acme Help',
      subdomain,
      publicSiteEnabled: false,
      languageCode: 'en',
      linkColor: '#ff0000',
      type: 'helpdocssites',
    });
    helpSite = created.body.helpdocssite.id;
    const list = await api(SITES, { key: agent });
    expect(list.status).toBe(200);
    expect(list.body.helpdocssites.map((s: { id: number }) => s.id)).toEqual([helpSite]);
    expect(list.body.pagination).toMatchObject({ records: 1, page: 1 });
    expect(list.body.meta.page).toMatchObject({ count: 1 });
  });

  it("refuses a taken or malformed subdomain, and are not another installation's to read", async () => {
    expectError(
      await api(SITES, { method: 'POST', key: owner, body: { helpdocssite: { name: 'Dup', subdomain } } }),
      409,
      'helpdocssite.subdomain',
    );
    expectError(
      await api(SITES, {
        method: 'POST',
        key: owner,
        body: { helpdocssite: { name: 'Bad', subdomain: 'no spaces!' } },
      }),
      400,
      'helpdocssite.subdomain',
    );
    expectError(
      await api(SITES, {
        method: 'POST',
        key: owner,
        body: { helpdocssite: { name: 'Bad', sendEmailsToInboxId: 999999 } },
      }),
      400,
      'helpdocssite.sendEmailsToInboxId',
    );
    expectError(await api(`/v2/helpdocssites/${helpSite}.json`, { key: other.users.owner.apiKey }), 404);
  });
});

describe('categories and articles', () => {
  it('file articles under categories of their own site, slugs made from names', async () => {
    const category = await api(CATEGORIES, {
      method: 'POST',
      key: agent,
      body: { helpdoccategory: { helpdocsite: { id: helpSite }, name: 'Billing & Payments' } },
    });
    expect(category.status, category.text).toBe(201);
    expect(category.body.helpdoccategory).toMatchObject({
      slug: 'billing-payments',
      helpdocsite: { id: helpSite, type: 'helpdocssites' },
    });
    billing = category.body.helpdoccategory.id;

    const created = await createArticle({
      title: 'Resetting your password',
      contents: '<p>Open <b>Settings</b>.</p><script>alert(1)</script><img src=x onerror="alert(2)">',
      categories: [billing],
      description: 'Locked out?',
    });
    expect(created).toMatchObject({
      slug: 'resetting-your-password',
      status: 'draft',
      isPrivate: false,
      categories: [billing],
      relatedArticles: [],
      popularity: 0,
      publishedAt: null,
      type: 'helpdocarticles',
    });
    expect(created.contents).toContain('<b>Settings</b>');
    expect(created.contents).not.toMatch(/script|onerror/);
    published = created.id;

    // another site's category, or another installation's, is no category here
    const second = await api(SITES, { method: 'POST', key: owner, body: { helpdocssite: { name: 'Internal' } } });
    const foreign = await api(CATEGORIES, {
      method: 'POST',
      key: agent,
      body: { helpdoccategory: { helpdocsite: { id: second.body.helpdocssite.id }, name: 'Elsewhere' } },
    });
    expectError(
      await api(ARTICLES, {
        method: 'POST',
        key: agent,
        body: {
          helpDocArticle: {
            helpdocsite: { id: helpSite },
            title: 'x',
            categories: [billing, foreign.body.helpdoccategory.id],
          },
        },
      }),
      400,
      'helpDocArticle.categories[1]',
    );
    expectError(
      await api(ARTICLES, {
        method: 'POST',
        key: other.users.owner.apiKey,
        body: { helpDocArticle: { helpdocsite: { id: helpSite }, title: 'x' } },
      }),
      400,
      'helpDocArticle.helpdocsite',
    );
    expectError(
      await api(article(published), {
        method: 'PATCH',
        key: agent,
        body: { helpDocArticle: { helpdocsite: { id: second.body.helpdocssite.id } } },
      }),
      400,
      'helpDocArticle.helpdocsite',
    );
    expectError(
      await api(article(published), {
        method: 'PATCH',
        key: agent,
        body: { helpDocArticle: { relatedArticles: [published] } },
      }),
      400,
      'helpDocArticle.relatedArticles[0]',
    );
    expectError(
      await api(ARTICLES, {
        method: 'POST',
        key: agent,
        body: { helpDocArticle: { helpdocsite: { id: helpSite }, title: 'Dup', slug: 'resetting-your-password' } },
      }),
      409,
      'helpDocArticle.slug',
    );
    expectError(
      await api(ARTICLES, {
        method: 'POST',
        key: site.users.collaborator.apiKey,
        body: { helpDocArticle: { helpdocsite: { id: helpSite }, title: 'x' } },
      }),
      403,
    );
  });

  it('are published: the time kept, Markdown rendered', async () => {
    const patched = await api(article(published), {
      method: 'PUT',
      key: agent,
      body: { helpDocArticle: { status: 'published' } },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.helpDocArticle.status).toBe('published');
    expect(Date.parse(patched.body.helpDocArticle.publishedAt)).toBeGreaterThan(Date.now() - 60_000);
    // the time it was published is a change of its own, with its event
    const updates = (await eventsOf(site.id, 'helpdocarticles', published)).filter((event) => event.kind === 'updated');
    expect(updates.map((event) => Object.keys(event.data))).toContainEqual(['publishedAt']);
    const markdown = await createArticle({
      title: 'Invoices',
      editMethod: 'markdown',
      contents: '# Invoices\n\nDownload **invoices** from billing.',
      status: 'published',
      categories: [billing],
      relatedArticles: [published],
    });
    expect(markdown.contents).toContain('<strong>invoices</strong>');
    await createArticle({
      title: 'Internal refund policy',
      contents: 'Refund invoices only after approval.',
      status: 'published',
      isPrivate: true,
    });
    await createArticle({ title: 'Draft about invoices', contents: 'invoices draft' });
  });

  it('get free slugs, keep Markdown on an update, and take long contents', async () => {
    const first = await createArticle({ title: '请问' });
    const second = await createArticle({ title: '你好' });
    expect([first.slug, second.slug]).toEqual(['article', 'article-2']);
    const markdown = await createArticle({ title: 'Shipping', editMethod: 'markdown', contents: 'plain' });
    const patched = await api(article(markdown.id), {
      method: 'PATCH',
      key: agent,
      body: { helpDocArticle: { contents: 'Ships in **two** days' } },
    });
    expect(patched.body.helpDocArticle.contents).toContain('<strong>two</strong>');
    // 140,000 different words: more than a search index holds; its first 100,000 characters are indexed
    const words = Array.from(
      { length: 140_000 },
      (_, i) => String.fromCharCode(0x4e00 + (i % 20_000)) + String.fromCharCode(0x4e00 + Math.floor(i / 20_000)),
    );
    const long = await api(ARTICLES, {
      method: 'POST',
      key: agent,
      body: { helpDocArticle: { helpdocsite: { id: helpSite }, title: 'Long', contents: words.join(' ') } },
    });
    expect(long.status, long.text.slice(0, 300)).toBe(201);
    for (const id of [first.id, second.id, markdown.id, long.body.helpDocArticle.id])
      await api(article(id), { method: 'DELETE', key: agent });
  });

  it("count on their site's stats, as the platform's client reads them", async () => {
    const read = await api(`/v2/helpdocssites/${helpSite}.json`, { key: agent });
    const counts = await rows<{ all: number; published: number }>(
      `SELECT count(*)::int AS all, (count(*) FILTER (WHERE status = 'published'))::int AS published FROM helpdoc_articles WHERE helpdoc_id = $1 AND state = 'active'`,
      [helpSite],
    );
    expect(counts[0]!.all).toBeGreaterThan(counts[0]!.published);
    expect(read.body.helpdocssite.stats).toEqual({
      articleCount: counts[0]!.all,
      publishedCount: counts[0]!.published,
      unpublishedCount: counts[0]!.all - counts[0]!.published,
      draftCount: counts[0]!.all - counts[0]!.published,
    });
    const listed = await api(SITES, { key: agent });
    expect(listed.body.helpdocssites.find((s: { id: number }) => s.id === helpSite).stats).toEqual(
      read.body.helpdocssite.stats,
    );
  });

  it('are found by full-text search over title, description and contents', async () => {
    const found = await api(ARTICLES, { key: agent, query: { search: 'invoices', orderBy: 'title' } });
    expect(found.status, found.text).toBe(200);
    expect(found.body.helpdocarticles.map((a: { title: string }) => a.title)).toEqual([
      'Draft about invoices',
      'Internal refund policy',
      'Invoices',
    ]);
    const phrase = await api(ARTICLES, { key: agent, query: { search: '"open settings"' } });
    expect(phrase.body.helpdocarticles.map((a: { id: number }) => a.id)).toEqual([published]);
    const excluded = await api(ARTICLES, { key: agent, query: { search: 'invoices -draft -refund' } });
    expect(excluded.body.helpdocarticles.map((a: { title: string }) => a.title)).toEqual(['Invoices']);
    const filed = await api(ARTICLES, { key: agent, query: { category: billing, filter: { status: 'published' } } });
    expect(filed.body.helpdocarticles).toHaveLength(2);
    expectError(await api(ARTICLES, { key: agent, query: { category: 'abc' } }), 400, 'category');
    expectError(await api(ARTICLES, { key: agent, query: { category: '99999999999' } }), 400, 'category');
    expectError(await api(ARTICLES, { key: agent, query: { search: 'bad\u0000word' } }), 400, 'search', /NUL/);
  });
});

describe("the platform's Go client", () => {
  it('writes an article as it marshals one: the whole response type, id 0, type null, categories null, every included list null', async () => {
    const sent = await api(ARTICLES, {
      method: 'POST',
      key: agent,
      headers: SDK_HEADERS,
      body: {
        helpDocArticle: {
          id: 0,
          type: null,
          helpdocsite: { id: helpSite, type: 'helpdocssites' },
          title: 'Go client article',
          popularity: 0,
          categories: null,
        },
        included: SDK_INCLUDED,
      },
    });
    expect(sent.status, sent.text).toBe(201);
    expect(sent.body.helpDocArticle).toMatchObject({ title: 'Go client article', categories: [], popularity: 0 });
    for (const key of ['id', 'popularity', 'displayOrder'])
      expect(Number.isInteger(sent.body.helpDocArticle[key]), key).toBe(true);
    const site = await api(`/v2/helpdocssites/${helpSite}.json`, {
      method: 'PUT',
      key: owner,
      headers: SDK_HEADERS,
      body: {
        helpdocssite: {
          id: helpSite,
          type: null,
          name: 'Acme Help',
          disqusShortname: null,
          contributors: null,
          stats: { articleCount: 1 },
        },
        included: SDK_INCLUDED,
      },
    });
    expect(site.status, site.text).toBe(200);
    // an update built afresh: the site a zero reference, categories null; neither changes anything
    const filed = await api(article(sent.body.helpDocArticle.id), {
      method: 'PATCH',
      key: agent,
      body: { helpDocArticle: { categories: [billing] } },
    });
    expect(filed.body.helpDocArticle.categories).toEqual([billing]);
    const updated = await api(article(sent.body.helpDocArticle.id), {
      method: 'PUT',
      key: agent,
      headers: SDK_HEADERS,
      body: {
        helpDocArticle: {
          id: 0,
          type: null,
          helpdocsite: { id: 0, type: '', meta: null },
          title: 'Go client article, renamed',
          categories: null,
        },
        included: SDK_INCLUDED,
      },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.helpDocArticle).toMatchObject({
      title: 'Go client article, renamed',
      categories: [billing],
      helpdocsite: { id: helpSite },
    });
    expectError(
      await api(ARTICLES, {
        method: 'POST',
        key: agent,
        body: { helpDocArticle: { helpdocsite: { id: 0, type: '' }, title: 'Nowhere' } },
      }),
      400,
      'helpDocArticle.helpdocsite',
    );
    expect((await api(article(sent.body.helpDocArticle.id), { method: 'DELETE', key: agent })).status).toBe(204);
  });
});

describe('the public help centre', () => {
  it('is not there until the site is made public', async () => {
    expect((await publicGet(`/v2/helpdocs/${subdomain}.json`)).status).toBe(404);
    const opened = await api(`/v2/helpdocssites/${helpSite}.json`, {
      method: 'PATCH',
      key: owner,
      body: { helpdocssite: { publicSiteEnabled: true } },
    });
    expect(opened.status, opened.text).toBe(200);
  });

  it('shows the site and its categories without a credential', async () => {
    const shown = await publicGet(`/v2/helpdocs/${subdomain}.json`);
    expect(shown.status).toBe(200);
    expect(shown.headers.get('access-control-allow-origin')).toBe('*');
    expect(shown.body.helpdocssite).toMatchObject({ id: helpSite, name: 'Acme Help', subdomain, linkColor: '#ff0000' });
    // a category shows only once it holds an article the public may read
    await api(CATEGORIES, {
      method: 'POST',
      key: agent,
      body: { helpdoccategory: { helpdocsite: { id: helpSite }, name: 'Drafts only' } },
    });
    expect(shown.body.helpdoccategories.map((c: { slug: string }) => c.slug)).toEqual(['billing-payments']);
    const again = await publicGet(`/v2/helpdocs/${subdomain}.json`);
    expect(again.body.helpdoccategories.map((c: { slug: string }) => c.slug)).toEqual(['billing-payments']);
    // a parent holding only a category that holds a readable article shows, so the tree is whole
    const parent = await api(CATEGORIES, {
      method: 'POST',
      key: agent,
      body: { helpdoccategory: { helpdocsite: { id: helpSite }, name: 'Money', displayOrder: 0 } },
    });
    await api(`/v2/helpdocssites/helpdoccategories/${billing}.json`, {
      method: 'PATCH',
      key: agent,
      body: { helpdoccategory: { parent: parent.body.helpdoccategory.id, displayOrder: 1 } },
    });
    const tree = await publicGet(`/v2/helpdocs/${subdomain}.json`);
    expect(tree.body.helpdoccategories.map((c: { slug: string; parent: number | null }) => [c.slug, c.parent])).toEqual(
      [
        ['money', null],
        ['billing-payments', parent.body.helpdoccategory.id],
      ],
    );
  });

  it('lists and searches only published articles that are not private', async () => {
    const listed = await publicGet(`/v2/helpdocs/${subdomain}/articles.json`);
    expect(listed.status).toBe(200);
    expect(listed.body.helpdocarticles.map((a: { title: string }) => a.title).sort()).toEqual([
      'Invoices',
      'Resetting your password',
    ]);
    expect(listed.body.pagination).toMatchObject({ records: 2, pageSize: 50 });
    const searched = await publicGet(`/v2/helpdocs/${subdomain}/articles.json?search=invoices`);
    expect(searched.body.helpdocarticles.map((a: { title: string }) => a.title)).toEqual(['Invoices']);
    const nothing = await publicGet(`/v2/helpdocs/${subdomain}/articles.json?search=refund`);
    expect(nothing.body.helpdocarticles).toEqual([]);
    expect((await publicGet(`/v2/helpdocs/${subdomain}/articles.json?pageSize=1000`)).status).toBe(400);
  });

  it('serves one article by slug, counting its reads, its related articles those the public may read', async () => {
    const first = await publicGet(`/v2/helpdocs/${subdomain}/articles/invoices.json`);
    expect(first.status).toBe(200);
    expect(first.body.helpDocArticle).toMatchObject({
      title: 'Invoices',
      popularity: 1,
      relatedArticles: [{ id: published, slug: 'resetting-your-password' }],
    });
    await publicGet(`/v2/helpdocs/${subdomain}/articles/invoices.json`);
    // each read counted after its answer
    await eventually(async () => {
      const [stored] = await rows<{ popularity: number }>(
        `SELECT popularity FROM helpdoc_articles WHERE installation_id = $1 AND slug = 'invoices'`,
        [site.id],
      );
      return stored!.popularity === 2 ? true : undefined;
    });
    for (const slug of ['internal-refund-policy', 'draft-about-invoices', 'nothing-here']) {
      const hidden = await publicGet(`/v2/helpdocs/${subdomain}/articles/${slug}.json`);
      expect(hidden.status, slug).toBe(404);
    }
    const missing = await publicGet('/v2/helpdocs/no-such-site/articles/invoices.json');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('closes when the site is no longer public', async () => {
    await api(`/v2/helpdocssites/${helpSite}.json`, {
      method: 'PATCH',
      key: owner,
      body: { helpdocssite: { publicSiteEnabled: false } },
    });
    expect((await publicGet(`/v2/helpdocs/${subdomain}/articles/invoices.json`)).status).toBe(404);
    await api(`/v2/helpdocssites/${helpSite}.json`, {
      method: 'PATCH',
      key: owner,
      body: { helpdocssite: { publicSiteEnabled: true } },
    });
  });
});

describe('links', () => {
  it('ties articles to a ticket and to a contact form, read back with includes', async () => {
    const inbox = (await api('/v2/inboxes.json', { key: owner })).body.inboxes[0].id;
    const customer = (
      await api('/v2/customers.json', { method: 'POST', key: owner, body: { email: 'reader@help.test' } })
    ).body.customer.id;
    const ticket = await api('/v2/tickets.json', {
      method: 'POST',
      key: agent,
      body: { subject: 'Locked out', inbox, customer, message: 'help', helpdocarticles: [{ id: published }] },
    });
    expect(ticket.status, ticket.text).toBe(201);
    const read = await api(`/v2/tickets/${ticket.body.ticket.id}.json`, {
      key: agent,
      query: { includes: 'helpdocarticles' },
    });
    expect(read.body.ticket.helpdocarticles).toEqual([{ id: published, type: 'helpdocarticles' }]);
    expect(read.body.included.helpdocarticles.map((a: { slug: string }) => a.slug)).toEqual([
      'resetting-your-password',
    ]);

    const form = await api('/v2/contactforms.json', {
      method: 'POST',
      key: owner,
      body: { contactform: { name: 'Support', helpdocs: [{ id: helpSite }], helpdocarticles: [{ id: published }] } },
    });
    expect(form.status, form.text).toBe(201);
    const formRead = await api(`/v2/contactforms/${form.body.contactform.id}.json`, {
      key: owner,
      query: { includes: 'helpdocs,helpdocarticles' },
    });
    expect(formRead.body.included.helpdocs.map((s: { id: number }) => s.id)).toEqual([helpSite]);
    expect(formRead.body.included.helpdocarticles.map((a: { id: number }) => a.id)).toEqual([published]);

    const foreign = await api('/v2/contactforms.json', {
      method: 'POST',
      key: other.users.owner.apiKey,
      body: { contactform: { name: 'Theirs', helpdocarticles: [{ id: published }] } },
    });
    expect(foreign.status).toBe(400);

    // the widget's public settings suggest the form's articles a customer may read, and only those
    const draft = await createArticle({ title: 'Unfinished', contents: 'draft' });
    await api(`/v2/contactforms/${form.body.contactform.id}.json`, {
      method: 'PATCH',
      key: owner,
      body: { contactform: { helpdocarticles: [{ id: published }, { id: draft.id }] } },
    });
    const widget = await publicGet(`/widget/forms/${form.body.contactform.token}.json`);
    expect(widget.status).toBe(200);
    expect(widget.body.contactform.helpdocarticles).toEqual([
      {
        id: published,
        title: 'Resetting your password',
        slug: 'resetting-your-password',
        description: 'Locked out?',
        subdomain,
      },
    ]);
  });

  it('deleting a category takes it off its articles', async () => {
    const doomed = await api(CATEGORIES, {
      method: 'POST',
      key: agent,
      body: { helpdoccategory: { helpdocsite: { id: helpSite }, name: 'Doomed' } },
    });
    const id = doomed.body.helpdoccategory.id;
    await api(article(published), {
      method: 'PATCH',
      key: agent,
      body: { helpDocArticle: { categories: [billing, id] } },
    });
    const child = await api(CATEGORIES, {
      method: 'POST',
      key: agent,
      body: { helpdoccategory: { helpdocsite: { id: helpSite }, name: 'Under doomed', parent: id } },
    });
    expect(child.status, child.text).toBe(201);
    expect((await api(`/v2/helpdocssites/helpdoccategories/${id}.json`, { method: 'DELETE', key: agent })).status).toBe(
      204,
    );
    const [stored] = await rows<{ categories: number[] }>(`SELECT categories FROM helpdoc_articles WHERE id = $1`, [
      published,
    ]);
    expect(stored!.categories).toEqual([billing]);
    // each record the delete changed says so with an event of its own
    const [filed] = (await eventsOf(site.id, 'helpdocarticles', published)).slice(-1);
    expect(filed).toMatchObject({ kind: 'updated', data: { categories: { before: [billing, id], after: [billing] } } });
    expect(
      (await api(`/v2/helpdocssites/helpdoccategories/${child.body.helpdoccategory.id}.json`, { key: agent })).body
        .helpdoccategory.parent,
    ).toBeNull();
    const [moved] = (await eventsOf(site.id, 'helpdoccategories', child.body.helpdoccategory.id)).slice(-1);
    expect(moved).toMatchObject({ kind: 'updated', data: { parent: { before: id, after: null } } });
  });

  it('deleting an article takes it off the articles related to it', async () => {
    const victim = await createArticle({ title: 'Soon gone' });
    const linker = await createArticle({ title: 'Points to it', relatedArticles: [victim.id] });
    expect((await api(article(victim.id), { method: 'DELETE', key: agent })).status).toBe(204);
    expect((await api(article(linker.id), { key: agent })).body.helpDocArticle.relatedArticles).toEqual([]);
    const [changed] = (await eventsOf(site.id, 'helpdocarticles', linker.id)).slice(-1);
    expect(changed).toMatchObject({ kind: 'updated', data: { relatedArticles: { before: [victim.id], after: [] } } });
  });
});
