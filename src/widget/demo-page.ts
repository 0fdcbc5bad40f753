import { escapeHtml } from '../lib/html/message-body';
import { FORM_TOKEN } from './form-token';

const STYLE = `
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2937; background: #f8fafc; }
  header { background: #0f172a; color: #f8fafc; padding: 18px 32px; font-weight: 600; font-size: 18px; }
  main { max-width: 640px; padding: 24px 32px; }
  code, pre { font: 13px/1.5 ui-monospace, SFMono-Regular, Menlo, monospace; background: #e2e8f0; border-radius: 6px; }
  code { padding: 1px 5px; }
  pre { padding: 12px; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
`;

/**
 * `GET /widget/demo.html?form=TOKEN`: a stand-in for a customer's page, embedding the widget
 * exactly as the embed snippet says. Without a usable `form`, it explains how to call it.
 */
export function demoPage(formToken: string | undefined): string {
  const usable = formToken !== undefined && FORM_TOKEN.test(formToken);
  const token = usable ? escapeHtml(formToken) : '';
  const snippet = `<script src="/widget.js" data-form-token="${usable ? formToken : 'FORM_TOKEN'}" async></script>`;
  const content = usable
    ? `<p>This page stands in for your website. The chat button in the corner is the helpdesk widget of
       contact form <code>${token}</code>, embedded with:</p>
       <pre>${escapeHtml(snippet)}</pre>`
    : `<p>Open this page with a contact form's token: <code>/widget/demo.html?form=FORM_TOKEN</code>.
       The token is the <code>token</code> of a contact form (<code>GET /v2/contactforms.json</code>);
       the chat needs the form's <code>isLiveChatEnabled</code>.</p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Chat widget demo</title>
<style>${STYLE}</style>
</head>
<body>
<header>Acme Outdoor Supplies</header>
<main>
<h1>Chat widget demo</h1>
${content}
</main>
${usable ? `<script src="/widget.js" data-form-token="${token}" async></script>` : ''}
</body>
</html>
`;
}
