// What `npm run dev`'s demo installation shows a newcomer besides its defaults: a contact form with
// live chat on (the widget can be tried at once on /widget/demo.html) and a public help centre
// with a published article the form suggests. Made through the API, as an owner would make it,
// and found again by name on every start: running it twice makes nothing twice.

const FORM_NAME = 'Website chat';
const ARTICLE_TITLE = 'Tracking your order';

export interface DemoContent {
  formToken: string;
  /** the public help centre's article, read without a credential */
  articlePath: string;
}

type Json = Record<string, any>;

/** Makes (or finds) the demo's form, help site and article in the installation `ownerKey` owns. */
export async function ensureDemoContent(apiUrl: string, ownerKey: string, siteName: string): Promise<DemoContent> {
  const call = async (path: string, init: { method?: string; body?: Json; filter?: Json } = {}): Promise<Json> => {
    const url = new URL(path, apiUrl);
    if (init.filter) url.searchParams.set('filter', JSON.stringify(init.filter));
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' },
      body: init.body && JSON.stringify(init.body),
    });
    const text = await response.text();
    if (!response.ok)
      throw new Error(
        `demo content: ${init.method ?? 'GET'} ${path} answered ${response.status}: ${text.slice(0, 500)}`,
      );
    return JSON.parse(text) as Json;
  };
  const subdomain = `${siteName.toLowerCase().replace(/[^a-z0-9-]/g, '-')}-help`;

  const site =
    (await call('/v2/helpdocssites.json', { filter: { subdomain } })).helpdocssites[0] ??
    (
      await call('/v2/helpdocssites.json', {
        method: 'POST',
        body: { helpdocssite: { name: 'Demo help centre', subdomain, publicSiteEnabled: true } },
      })
    ).helpdocssite;

  const article =
    (await call('/v2/helpdocssites/helpdocarticles.json', { filter: { helpdocsite: site.id, title: ARTICLE_TITLE } }))
      .helpdocarticles[0] ??
    (
      await call('/v2/helpdocssites/helpdocarticles.json', {
        method: 'POST',
        body: {
          helpDocArticle: {
            helpdocsite: { id: site.id },
            title: ARTICLE_TITLE,
            status: 'published',
            editMethod: 'markdown',
            description: 'Where your parcel is, and what to do when it is late',
            contents:
              'Every order mail has a **tracking link**. A parcel that has not moved for five working days is late: reply to the order mail, or chat with us, and we send a new one.',
          },
        },
      })
    ).helpDocArticle;

  const inbox = (await call('/v2/inboxes.json')).inboxes[0];
  const found = (await call('/v2/contactforms.json', { filter: { name: FORM_NAME } })).contactforms[0];
  const settings = {
    name: FORM_NAME,
    inbox: { id: inbox.id },
    isLiveChatEnabled: true,
    liveChatWelcomeMessage: 'Hi there! Ask us anything about your order.',
    // the AI assistant answers a visitor no teammate answered within 15 s, from the article below
    aiAssistant: true,
    aiWaitSeconds: 15,
    helpdocs: [{ id: site.id }],
    helpdocarticles: [{ id: article.id }],
  };
  const form = found
    ? (
        await call(`/v2/contactforms/${found.id}.json`, {
          method: 'PATCH',
          body: { contactform: { helpdocs: settings.helpdocs, helpdocarticles: settings.helpdocarticles } },
        })
      ).contactform
    : (await call('/v2/contactforms.json', { method: 'POST', body: { contactform: settings } })).contactform;

  return { formToken: form.token, articlePath: `/v2/helpdocs/${subdomain}/articles/${article.slug}.json` };
}
