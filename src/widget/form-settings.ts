import { and, eq } from 'drizzle-orm';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../app-env';
import { CONTACT_FORM_POSITIONS, CONTACT_FORM_THEMES, contactForms } from '../db/schema';
import { ApiError } from '../http/errors';
import { addRoute, rawPathParam } from '../http/route';
import { errorBodySchema } from '../openapi/schemas';

/** What a contact form's token may look like (src/resources/contactforms/form-token.ts makes 32 such characters). */
export const FORM_TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

/** What anyone holding the token may read: what the widget shows. Nothing else of the form (inbox, audit set). */
export const publicFormSettings = z.object({
  name: z.string(),
  accentColor: z.string(),
  triggerColor: z.string(),
  theme: z.enum(CONTACT_FORM_THEMES),
  position: z.enum(CONTACT_FORM_POSITIONS),
  isLiveChatEnabled: z.boolean(),
  liveChatWelcomeMessage: z.string().nullable(),
});

/** Browsers and CDNs may reuse the settings for a minute: a changed colour or welcome shows within that. */
const SETTINGS_CACHE = 'public, max-age=60';

async function formSettings(c: Context<AppEnv>) {
  const token = rawPathParam(c, 'formToken');
  // A token of the wrong form is no form, like an unknown one: the answer tells a guesser nothing.
  if (!FORM_TOKEN.test(token)) throw ApiError.notFound('formToken', 'no contact form has this token');
  const [form] = await c.var.db.http
    .select({
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
  return c.json({ contactform: form }, 200, { 'cache-control': SETTINGS_CACHE });
}

/** `GET /widget/forms/{formToken}.json`: a contact form's public settings, for the chat widget. */
export function formSettingsRoute(app: Hono<AppEnv>): void {
  addRoute(app, {
    method: 'get',
    path: '/widget/forms/{formToken}.json',
    tag: 'widget',
    public: true,
    summary: 'A contact form\'s public settings (name, colours, theme, position, live chat and its welcome message), by the form\'s token',
    responses: {
      200: { description: 'the settings, as `{"contactform": {...}}`', schema: z.object({ contactform: publicFormSettings }) },
      404: { description: 'no live contact form has this token', schema: errorBodySchema },
    },
  }, formSettings);
}
