import { defineRoute } from '../http/route';

export const getWidgetScriptRoute = defineRoute(
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
