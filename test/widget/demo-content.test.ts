// `npm run dev`'s demo content (scripts/demo-content.ts): a form with live chat on and a public
// help centre's published article it suggests, made through the API and found again on the next
// start, so the widget can be tried without reading code (docs/widget.md).
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureDemoContent } from '../../scripts/demo-content';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';

let site: SeededInstallation;
beforeAll(async () => {
  site = await newInstallation('demo-content');
});

describe("the dev server's demo content", () => {
  it('is a live-chat form suggesting a published public article, made once however often the server starts', async () => {
    const first = await ensureDemoContent(inject('workerUrl'), site.users.owner.apiKey, site.siteName);
    const again = await ensureDemoContent(inject('workerUrl'), site.users.owner.apiKey, site.siteName);
    expect(again).toEqual(first);

    const settings = await api(`/widget/forms/${first.formToken}.json`);
    expect(settings.status, settings.text).toBe(200);
    expect(settings.body.contactform).toMatchObject({
      name: 'Website chat',
      isLiveChatEnabled: true,
      liveChatWelcomeMessage: 'Hi there! Ask us anything about your order.',
    });
    const form = await api(`/v2/contactforms.json`, {
      key: site.users.owner.apiKey,
      query: { filter: { token: first.formToken } },
    });
    expect(form.body.contactforms[0]).toMatchObject({ aiAssistant: true, aiWaitSeconds: 15 });
    expect(settings.body.contactform.helpdocarticles.map((a: { title: string }) => a.title)).toEqual([
      'Tracking your order',
    ]);

    const article = await api(first.articlePath);
    expect(article.status, article.text).toBe(200);
    expect(JSON.stringify(article.body)).toContain('<strong>tracking link</strong>');

    const counted = await rows<{ forms: number; sites: number; articles: number }>(
      `SELECT
        (SELECT count(*)::int FROM contact_forms WHERE installation_id = $1 AND state = 'active') AS forms,
        (SELECT count(*)::int FROM helpdocs WHERE installation_id = $1 AND state = 'active') AS sites,
        (SELECT count(*)::int FROM helpdoc_articles WHERE installation_id = $1 AND state = 'active') AS articles`,
      [site.id],
    );
    expect(counted).toEqual([{ forms: 1, sites: 1, articles: 1 }]);
  });
});
