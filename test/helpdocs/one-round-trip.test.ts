// A help-doc category's or article's create or update is one exchange with the database (one HTTP
// batch): its site's rules as statements, a slug made free by the insert itself, Markdown rendered
// for the stored way of writing, the first publication kept; a rule that fails inside that exchange
// answers the same 4xx as ever and leaves nothing written (docs/connection-strategy.md).
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { withRoundTrips } from '../support/round-trips';

let site: SeededInstallation;
let agent: string;
let helpSite: number;
let otherSite: number;

const CATEGORIES = '/v2/helpdocssites/helpdoccategories.json';
const ARTICLES = '/v2/helpdocssites/helpdocarticles.json';
const category = (id: number) => `/v2/helpdocssites/helpdoccategories/${id}.json`;
const article = (id: number) => `/v2/helpdocssites/helpdocarticles/${id}.json`;

beforeAll(async () => {
  site = await newInstallation('helpdoc-trips');
  agent = site.users.agent.apiKey;
  const owner = site.users.owner.apiKey;
  helpSite = (
    await api('/v2/helpdocssites.json', { method: 'POST', key: owner, body: { helpdocssite: { name: 'Trips' } } })
  ).body.helpdocssite.id;
  otherSite = (
    await api('/v2/helpdocssites.json', { method: 'POST', key: owner, body: { helpdocssite: { name: 'Elsewhere' } } })
  ).body.helpdocssite.id;
  // the credential is looked up once, then remembered: the requests below are the write alone
  await api(ARTICLES, { key: agent });
});

/** The request's answer and its database round trips, from its log line. */
const tripsOf = (path: string, method: string, body: unknown) => withRoundTrips(path, { key: agent, method, body });

const newCategory = async (body: Record<string, unknown>) => {
  const made = await api(CATEGORIES, {
    method: 'POST',
    key: agent,
    body: { helpdoccategory: { helpdocsite: { id: helpSite }, ...body } },
  });
  expect(made.status, made.text).toBe(201);
  return made.body.helpdoccategory;
};

describe('help docs in one round trip', () => {
  it('creates a category and an article, each with a slug made free on its site, filed, related and published, in one exchange each', async () => {
    const first = await newCategory({ name: 'Trip FAQ' });
    const { answer: second, trips: categoryTrips } = await tripsOf(CATEGORIES, 'POST', {
      helpdoccategory: { helpdocsite: { id: helpSite }, name: 'Trip  faq!', parent: first.id },
    });
    expect(second.status, second.text).toBe(201);
    expect(categoryTrips).toBe(1);
    expect(second.body.helpdoccategory).toMatchObject({ slug: 'trip-faq-2', parent: first.id });

    const related = (
      await api(ARTICLES, {
        method: 'POST',
        key: agent,
        body: { helpDocArticle: { helpdocsite: { id: helpSite }, title: 'Trip refunds' } },
      })
    ).body.helpDocArticle;
    expect(related.slug).toBe('trip-refunds');
    const { answer, trips } = await tripsOf(ARTICLES, 'POST', {
      helpDocArticle: {
        helpdocsite: { id: helpSite },
        title: 'Trip refunds',
        editMethod: 'markdown',
        contents: 'Refunds take **five** days',
        status: 'published',
        categories: [first.id, second.body.helpdoccategory.id],
        relatedArticles: [related.id],
      },
    });
    expect(answer.status, answer.text).toBe(201);
    expect(trips).toBe(1);
    const made = answer.body.helpDocArticle;
    expect(made).toMatchObject({
      slug: 'trip-refunds-2',
      status: 'published',
      categories: [first.id, second.body.helpdoccategory.id],
      relatedArticles: [related.id],
    });
    expect(made.contents).toContain('<strong>five</strong>');
    expect(Date.parse(made.publishedAt)).toBeGreaterThan(Date.now() - 60_000);
    const events = await rows<{ kind: string; data: Record<string, unknown> }>(
      `SELECT kind, data FROM events WHERE installation_id = $1 AND record_type = 'helpdocarticles' AND record_id = $2 ORDER BY id`,
      [site.id, made.id],
    );
    expect(events.map((e) => [e.kind, Object.keys(e.data)])).toEqual([
      ['created', expect.anything()],
      ['updated', ['publishedAt']],
    ]);
  });

  it('updates an article (Markdown kept from the stored way of writing, published once) and a category in one exchange each', async () => {
    const written = (
      await api(ARTICLES, {
        method: 'POST',
        key: agent,
        body: {
          helpDocArticle: {
            helpdocsite: { id: helpSite },
            title: 'Trip shipping',
            editMethod: 'markdown',
            contents: 'plain',
          },
        },
      })
    ).body.helpDocArticle;
    const { answer, trips } = await tripsOf(article(written.id), 'PATCH', {
      helpDocArticle: { contents: 'Ships in **two** days', status: 'published' },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(trips).toBe(1);
    expect(answer.body.helpDocArticle.contents).toContain('<strong>two</strong>');
    const publishedAt = answer.body.helpDocArticle.publishedAt as string;
    expect(Date.parse(publishedAt)).toBeGreaterThan(Date.now() - 60_000);
    const html = await tripsOf(article(written.id), 'PATCH', {
      helpDocArticle: { editMethod: 'html', contents: 'Ships in **two** days', status: 'draft' },
    });
    expect(html.answer.body.helpDocArticle).toMatchObject({
      contents: 'Ships in **two** days',
      status: 'draft',
      publishedAt,
    });
    expect(html.trips).toBe(1);

    const parent = await newCategory({ name: 'Trip parent' });
    const child = await newCategory({ name: 'Trip child' });
    const moved = await tripsOf(category(child.id), 'PATCH', {
      helpdoccategory: { helpdocsite: { id: helpSite }, parent: parent.id, description: 'Under the parent' },
    });
    expect(moved.answer.status, moved.answer.text).toBe(200);
    expect(moved.trips).toBe(1);
    expect(moved.answer.body.helpdoccategory).toMatchObject({
      parent: parent.id,
      slug: 'trip-child',
      description: 'Under the parent',
    });
  });

  it("refuses another site's category, parent or related article, and a move to another site, in the same exchange, writing nothing", async () => {
    const mine = await newCategory({ name: 'Trip mine' });
    const theirs = (
      await api(CATEGORIES, {
        method: 'POST',
        key: agent,
        body: { helpdoccategory: { helpdocsite: { id: otherSite }, name: 'Trip theirs' } },
      })
    ).body.helpdoccategory;
    const theirArticle = (
      await api(ARTICLES, {
        method: 'POST',
        key: agent,
        body: { helpDocArticle: { helpdocsite: { id: otherSite }, title: 'Trip theirs' } },
      })
    ).body.helpDocArticle;
    const kept = (
      await api(ARTICLES, {
        method: 'POST',
        key: agent,
        body: { helpDocArticle: { helpdocsite: { id: helpSite }, title: 'Trip kept' } },
      })
    ).body.helpDocArticle;
    const before = await rows(`SELECT count(*)::int AS n FROM helpdoc_articles WHERE installation_id = $1`, [site.id]);
    for (const [path, method, body, source, detail] of [
      [
        ARTICLES,
        'POST',
        { helpDocArticle: { helpdocsite: { id: helpSite }, title: 'Trip refused', categories: [mine.id, theirs.id] } },
        'helpDocArticle.categories[1]',
        `no category ${theirs.id} on this site`,
      ],
      [
        ARTICLES,
        'POST',
        {
          helpDocArticle: { helpdocsite: { id: helpSite }, title: 'Trip refused', relatedArticles: [theirArticle.id] },
        },
        'helpDocArticle.relatedArticles[0]',
        `no article ${theirArticle.id} on this site`,
      ],
      [
        article(kept.id),
        'PATCH',
        { helpDocArticle: { title: 'Trip changed', helpdocsite: { id: otherSite } } },
        'helpDocArticle.helpdocsite',
        'it stays with its site: make one on the other site',
      ],
      [
        article(kept.id),
        'PATCH',
        { helpDocArticle: { title: 'Trip changed', categories: [theirs.id] } },
        'helpDocArticle.categories[0]',
        `no category ${theirs.id} on this site`,
      ],
      [
        CATEGORIES,
        'POST',
        { helpdoccategory: { helpdocsite: { id: helpSite }, name: 'Trip refused', parent: theirs.id } },
        'helpdoccategory.parent[0]',
        `no category ${theirs.id} on this site`,
      ],
      [
        category(mine.id),
        'PATCH',
        { helpdoccategory: { name: 'Trip changed', helpdocsite: { id: otherSite } } },
        'helpdoccategory.helpdocsite',
        'it stays with its site: make one on the other site',
      ],
    ] as const) {
      const { answer, trips } = await tripsOf(path, method, body);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.errors).toEqual([{ code: 'invalid', source, detail }]);
      expect(trips).toBe(1);
    }
    expect(await rows(`SELECT count(*)::int AS n FROM helpdoc_articles WHERE installation_id = $1`, [site.id])).toEqual(
      before,
    );
    expect(
      await rows(`SELECT id FROM helpdoc_categories WHERE installation_id = $1 AND name = 'Trip refused'`, [site.id]),
    ).toEqual([]);
    expect(await rows(`SELECT title FROM helpdoc_articles WHERE id = $1`, [kept.id])).toEqual([{ title: 'Trip kept' }]);
    expect(await rows(`SELECT name FROM helpdoc_categories WHERE id = $1`, [mine.id])).toEqual([{ name: 'Trip mine' }]);
  });

  it('answers a slug the site has as the 409 its constraint names, in one exchange', async () => {
    await api(ARTICLES, {
      method: 'POST',
      key: agent,
      body: { helpDocArticle: { helpdocsite: { id: helpSite }, title: 'Trip twice' } },
    });
    const { answer, trips } = await tripsOf(ARTICLES, 'POST', {
      helpDocArticle: { helpdocsite: { id: helpSite }, title: 'Other', slug: 'trip-twice' },
    });
    expect(answer.status).toBe(409);
    expect(answer.body.errors).toEqual([
      { code: 'conflict', source: 'helpDocArticle.slug', detail: 'the site has an article with this slug already' },
    ]);
    expect(trips).toBe(1);
  });
});
