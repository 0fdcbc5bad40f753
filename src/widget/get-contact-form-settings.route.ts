import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { CONTACT_FORM_POSITIONS, CONTACT_FORM_THEMES, contactFormHelpdocArticles, contactForms } from '../db/schema';
import { ApiError } from '../http/errors';
import { textParam } from '../http/params';
import { errorResponse, jsonResponse } from '../http/responses';
import { defineRoute } from '../http/route';
import { publicArticleLink, publicArticleLinks } from '../resources/helpdocs/public-site';
import { FORM_TOKEN } from './form-token';

/** What anyone holding the token may read: what the widget shows. Nothing else of the form (inbox, audit set). */
export const publicFormSettings = z
  .object({
    name: z.string(),
    accentColor: z.string(),
    triggerColor: z.string(),
    theme: z.enum(CONTACT_FORM_THEMES),
    position: z.enum(CONTACT_FORM_POSITIONS),
    isLiveChatEnabled: z.boolean(),
    liveChatWelcomeMessage: z.string().nullable(),
    helpdocarticles: z.array(publicArticleLink).meta({
      description:
        'the help articles the form suggests that anyone may read (published, not private, on a public site)',
    }),
  })
  .meta({ id: 'ContactFormSettings' });

/** Browsers and CDNs may reuse the settings for a minute: a changed colour or welcome shows within that. */
const SETTINGS_CACHE = 'public, max-age=60';

/** `GET /widget/forms/{formToken}.json`: a contact form's public settings, for the chat widget. */
export const getContactFormSettingsRoute = defineRoute(
  {
    method: 'get',
    path: '/widget/forms/{formToken}.json',
    tag: 'Widget',
    operationId: 'getContactFormSettings',
    public: true,
    summary:
      "A contact form's public settings (name, colours, theme, position, live chat and its welcome message, the help articles it suggests), by the form's token",
    description:
      'What the chat widget needs of a live contact form, by its token (the token is the credential): its name, colours, theme, position, whether live chat is on and its welcome message, and the help articles it suggests that anyone may read; nothing else of the form. An unknown token, a deleted form or a malformed token is a 404. Readable from any origin and cached for a minute. See docs/widget.md.',
    request: { params: z.object({ formToken: textParam("the contact form's token") }) },
    responses: {
      200: jsonResponse('the settings, as `{"contactform": {...}}`', z.object({ contactform: publicFormSettings })),
      404: errorResponse('no live contact form has this token'),
    },
  },
  async (c) => {
    const { formToken: token } = c.req.valid('param');
    // A token of the wrong form is no form, like an unknown one: the answer tells a guesser nothing.
    if (!FORM_TOKEN.test(token)) throw ApiError.notFound('formToken', 'no contact form has this token');
    const [form] = await c.var.db.http
      .select({
        id: contactForms.id,
        installationId: contactForms.installationId,
        name: contactForms.name,
        accentColor: contactForms.accentColor,
        triggerColor: contactForms.triggerColor,
        theme: contactForms.theme,
        position: contactForms.position,
        isLiveChatEnabled: contactForms.isLiveChatEnabled,
        liveChatWelcomeMessage: contactForms.liveChatWelcomeMessage,
      })
      .from(contactForms)
      .where(and(eq(contactForms.token, token), eq(contactForms.state, 'active')));
    if (!form) throw ApiError.notFound('formToken', 'no contact form has this token');
    const { id, installationId, ...settings } = form;
    const suggested = sql`(SELECT ${contactFormHelpdocArticles.articleId} FROM ${contactFormHelpdocArticles} WHERE ${contactFormHelpdocArticles.contactFormId} = ${id} AND ${contactFormHelpdocArticles.installationId} = ${installationId})`;
    const helpdocarticles = await publicArticleLinks(c.var.db.http, installationId, suggested);
    return c.json({ contactform: { ...settings, helpdocarticles } }, 200, { 'cache-control': SETTINGS_CACHE });
  },
);
