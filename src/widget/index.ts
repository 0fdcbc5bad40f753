import { z } from 'zod';
import { defineRoute } from '../http/route';
import { defineModule } from '../modules/module';
import { conversationStartCors, formSettingsCors } from './cors';
import { demoPage } from './demo-page';
import { formSettingsRoute } from './form-settings';

const scriptRoute = defineRoute(
  {
    method: 'get',
    path: '/widget.js',
    tag: 'Widget',
    operationId: 'getWidgetScript',
    public: true,
    summary: 'The chat widget, to embed on a site (docs/widget.md)',
    description:
      'The chat widget\'s script, which a site embeds with `<script src="…/widget.js" data-form-token="FORM_TOKEN" async>`: a chat button and panel where a visitor gives a name and email and chats live through the contact form\'s conversations. A static asset served from the edge with an `ETag` and reused for five minutes, then revalidated (a 304 while unchanged), so a deploy reaches every site within minutes; another method than GET or HEAD is answered 405 by the edge, without the error body. See docs/widget.md.',
    'x-static-asset': true,
    responses: {
      200: { description: 'the script', content: { 'text/javascript': { schema: { type: 'string' } } } },
      304: { description: 'not modified since the ETag sent in If-None-Match' },
    },
    // served before the Worker runs (wrangler.toml `[assets]`, built from ./browser/ by scripts/build-assets.ts)
  },
  (c) => c.env.ASSETS.fetch(c.req.raw),
);

const demoRoute = defineRoute(
  {
    method: 'get',
    path: '/widget/demo.html',
    tag: 'Widget',
    operationId: 'getWidgetDemo',
    public: true,
    summary: 'A page embedding the chat widget for a contact form, to try it',
    description:
      "An HTML page that stands in for a customer's site and embeds the widget for the contact form whose token is `form`, exactly as the embed snippet says; without a usable token it explains how to call it. Nothing from the query reaches the page as markup, and it is not cached. See docs/widget.md.",
    request: { query: z.object({ form: z.string().optional().meta({ description: "the contact form's token" }) }) },
    responses: { 200: { description: 'an HTML page', content: { 'text/html': { schema: { type: 'string' } } } } },
  },
  (c) => c.html(demoPage(c.req.valid('query').form), 200, { 'cache-control': 'no-cache' }),
);

/**
 * The chat widget (docs/widget.md): its script, a demo page, the public settings of a contact
 * form, and the CORS of the two routes the widget calls from a customer's site (the start of a
 * conversation is the conversations' own route).
 */
export const widgetModule = defineModule({
  name: 'widget',
  routes: [scriptRoute, demoRoute, formSettingsRoute],
  middleware: [
    { path: '/widget/forms/*', handler: formSettingsCors() },
    { path: '/v2/conversations.json', handler: conversationStartCors() },
  ],
});
