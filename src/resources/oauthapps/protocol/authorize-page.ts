import { escapeHtml } from '../../../lib/html/message-body';
import type { OAuthScope } from '../../../db/schema';

const SCOPE_WORDS: Record<OAuthScope, string> = {
  desk: 'read and change everything you can in the helpdesk: tickets, customers, replies, settings',
  'desk:read': 'read everything you can see in the helpdesk, and change nothing',
};

const STYLE = `
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2937; background: #f8fafc; }
  main { max-width: 460px; margin: 48px auto; padding: 28px 32px; background: #fff; border: 1px solid #e2e8f0; border-radius: 10px; }
  h1 { font-size: 20px; margin: 0 0 12px; }
  ul { padding-left: 20px; }
  label { display: block; margin: 16px 0 4px; font-weight: 600; }
  input[type=password] { width: 100%; box-sizing: border-box; padding: 8px; font: inherit; border: 1px solid #94a3b8; border-radius: 6px; }
  .buttons { display: flex; gap: 12px; margin-top: 20px; }
  button { font: inherit; padding: 8px 18px; border-radius: 6px; border: 1px solid #0f172a; cursor: pointer; }
  button[value=allow] { background: #0f172a; color: #fff; }
  button[value=deny] { background: #fff; color: #0f172a; }
  .problem { color: #b91c1c; }
  .who { color: #475569; }
`;

function page(title: string, content: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${content}
</main>
</body>
</html>
`;
}

/** What the consent form carries back: the authorization request, unchanged. */
export type HiddenFields = Record<string, string | undefined>;

/**
 * The consent page: what the app asks for, who is signed in (the sign-in cookie's teammate) or a
 * field for an API key, and Allow and Deny. `problem` says why the last try did not go through.
 */
export function consentPage(view: {
  appName: string;
  helpdesk: string;
  scopes: readonly OAuthScope[];
  redirectHost: string;
  signedInAs: string | undefined;
  hidden: HiddenFields;
  problem?: string;
}): string {
  const hidden = Object.entries(view.hidden)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');
  const who = view.signedInAs
    ? `<p class="who">Signed in as <strong>${escapeHtml(view.signedInAs)}</strong>. To allow as someone else, enter their API key.</p>
<label for="api_key">Another teammate's API key (optional)</label>`
    : `<label for="api_key">Your API key</label>`;
  return page(`Allow ${view.appName}?`, `<h1>Allow <strong>${escapeHtml(view.appName)}</strong> to use ${escapeHtml(view.helpdesk)} as you?</h1>
<p>It will be able to:</p>
<ul>${view.scopes.map((scope) => `<li>${escapeHtml(SCOPE_WORDS[scope])}</li>`).join('')}</ul>
<p>You will go back to <strong>${escapeHtml(view.redirectHost)}</strong>. You can revoke its access at any time.</p>
${view.problem ? `<p class="problem" role="alert">${escapeHtml(view.problem)}</p>` : ''}
<form method="post" autocomplete="off">
${hidden}
${who}
<input type="password" id="api_key" name="api_key" autocomplete="off"${view.signedInAs ? '' : ' required'}>
<div class="buttons">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</div>
</form>`);
}

/** A request that cannot go back to the app (no such app, a redirect URI it did not register): said here, never redirected (RFC 6749 4.1.2.1). */
export function problemPage(message: string): string {
  return page('Cannot authorize', `<h1>This sign-in link does not work</h1>
<p class="problem" role="alert">${escapeHtml(message)}</p>
<p>Tell the people who made the app that sent you here.</p>`);
}

/** Headers of every authorize page: never framed (clickjacking), never cached, nothing loaded from elsewhere. */
export const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'Referrer-Policy': 'no-referrer',
};
