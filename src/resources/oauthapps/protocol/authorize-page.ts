import { escapeHtml } from '../../../lib/html/message-body';
import { page } from '../../../lib/html/page';
import type { OAuthScope } from '../../../db/schema';

const SCOPE_WORDS: Record<OAuthScope, string> = {
  desk: 'read and change everything you can in the helpdesk: tickets, customers, replies, settings',
  'desk:read': 'read everything you can see in the helpdesk, and change nothing',
};

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
  return page(
    `Allow ${view.appName}?`,
    `<h1>Allow <strong>${escapeHtml(view.appName)}</strong> to use ${escapeHtml(view.helpdesk)} as you?</h1>
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
</form>`,
  );
}

/** A request that cannot go back to the app (no such app, a redirect URI it did not register): said here, never redirected (RFC 6749 4.1.2.1). */
export function problemPage(message: string): string {
  return page(
    'Cannot authorize',
    `<h1>This sign-in link does not work</h1>
<p class="problem" role="alert">${escapeHtml(message)}</p>
<p>Tell the people who made the app that sent you here.</p>`,
  );
}
