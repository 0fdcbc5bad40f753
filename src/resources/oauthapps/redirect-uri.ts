import { z } from 'zod';

const LOOPBACK_IPS = new Set(['127.0.0.1', '[::1]']);
const LOCAL_HOSTS = new Set([...LOOPBACK_IPS, 'localhost']);

/**
 * Why a redirect URI may not be registered, or undefined when it may: an absolute URI without a
 * fragment (RFC 6749 3.1.2), over https, or http to this machine (a native app's loopback
 * listener, RFC 8252 7.3), or a private-use scheme with a dot in it (`com.example.app:/cb`, RFC
 * 8252 7.1). Never `javascript:`, `data:` or another scheme a browser runs.
 */
export function refusedRedirectUri(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URI';
  }
  if (url.hash || value.includes('#')) return 'must not have a fragment';
  if (url.username || url.password) return 'must not carry a user name or password';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:')
    return LOCAL_HOSTS.has(url.hostname) ? undefined : 'must use https (http only to 127.0.0.1, [::1] or localhost)';
  return /^[a-z][a-z0-9+-]*\.[a-z0-9.+-]+:$/.test(url.protocol)
    ? undefined
    : 'must use https, http to this machine, or a private-use scheme such as com.example.app:';
}

/** An app's redirect URIs: 1 to 10 of them, each one `refusedRedirectUri` allows, each once. */
export const redirectUris = z
  .array(
    z
      .string()
      .max(2000)
      .superRefine((value, context) => {
        const refused = refusedRedirectUri(value);
        if (refused) context.addIssue({ code: 'custom', message: refused });
      }),
  )
  .min(1)
  .max(10)
  .transform((list) => [...new Set(list)])
  .meta({
    description:
      'where the authorize page may send the teammate back: matched exactly (a loopback http one on any port, RFC 8252); 1 to 10',
  });

/**
 * The registered URI a request's `redirect_uri` names, or undefined: the same string, except that
 * a registered loopback IP (`http://127.0.0.1/cb`) matches on any port, as a native app's
 * listener takes one when it starts (RFC 8252 7.3). Nothing else may differ: no user info, no
 * fragment, no other host, path or query.
 */
export function matchRedirectUri(registered: readonly string[], asked: string): string | undefined {
  if (registered.includes(asked)) return asked;
  let url: URL;
  try {
    url = new URL(asked);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' || !LOOPBACK_IPS.has(url.hostname)) return undefined;
  return registered.some((uri) => sameButPort(uri, url)) ? asked : undefined;
}

/** The registered loopback URI with the asked one's port in it is the asked one. */
function sameButPort(registered: string, asked: URL): boolean {
  try {
    const url = new URL(registered);
    if (url.protocol !== 'http:' || !LOOPBACK_IPS.has(url.hostname)) return false;
    url.port = asked.port;
    return url.href === asked.href;
  } catch {
    return false;
  }
}
