import type { Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { withDatabase } from '../db/middleware';
import { conversationStartCors, formSettingsCors } from './cors';
import { demoPage } from './demo-page';
import { formSettingsRoute } from './form-settings';
import { WIDGET_SCRIPT } from './widget-script';

/** A weak validator for the script: it changes only with a deploy, so it is computed once. */
function etagOf(text: string): string {
  let hash = 0x811c9dc5; // FNV-1a, 32 bits: enough to tell two versions of one file apart
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return `W/"${(hash >>> 0).toString(16)}-${text.length.toString(16)}"`;
}

const SCRIPT_ETAG = etagOf(WIDGET_SCRIPT);
/**
 * Customers embed one unversioned address, so a copy is reused for five minutes and then
 * revalidated (a 304 with the ETag): a deploy reaches every site within minutes.
 */
const SCRIPT_CACHE = 'public, max-age=300';

/**
 * The chat widget (docs/widget.md): its script, a demo page, the public settings of a contact
 * form, and the CORS of the two routes the widget calls from a customer's site. Mounted before
 * the `/v2` database and authentication middleware.
 */
export function widgetRoutes(app: Hono<AppEnv>): void {
  app.get('/widget.js', (c) => {
    const headers = { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': SCRIPT_CACHE, etag: SCRIPT_ETAG };
    if (c.req.header('if-none-match')?.split(',').some((tag) => tag.trim() === SCRIPT_ETAG)) return c.body(null, 304, headers);
    return c.body(WIDGET_SCRIPT, 200, headers);
  });

  app.get('/widget/demo.html', (c) =>
    c.html(demoPage(c.req.query('form')), 200, { 'cache-control': 'no-cache' }));

  app.use('/widget/forms/*', formSettingsCors(), withDatabase);
  formSettingsRoute(app);

  // The widget starts its conversation cross-origin; the route itself is the conversations' own.
  app.use('/v2/conversations.json', conversationStartCors());
}
