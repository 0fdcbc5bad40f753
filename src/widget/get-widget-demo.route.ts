import { z } from 'zod';
import { defineRoute } from '../http/route';
import { demoPage } from './demo-page';

export const getWidgetDemoRoute = defineRoute(
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
