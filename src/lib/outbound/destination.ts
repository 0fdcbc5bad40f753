import { ipLiteral, isPrivateName, isPublicAddress } from './address';
import { dnsAnswers } from './dns';

/**
 * Where an outbound request (a webhook delivery, a call to the project-management product) may
 * go: an `https` address whose host is, and resolves only to, public addresses. The local stack
 * may allow `http` and name private hosts its receivers and stand-ins listen on
 * (`WEBHOOK_ALLOW_HTTP`, `WEBHOOK_ALLOWED_PRIVATE_HOSTS`, for both); production sets neither.
 */
export interface DestinationRules {
  allowHttp: boolean;
  /** host literals allowed though private (`127.0.0.1` for the tests' receivers) */
  allowedPrivateHosts: ReadonlySet<string>;
  /** a DNS-over-HTTPS endpoint answering `application/dns-json` (Cloudflare's by default) */
  resolverUrl: string;
}

export const DEFAULT_RESOLVER = 'https://cloudflare-dns.com/dns-query';

export function destinationRules(env: {
  WEBHOOK_ALLOW_HTTP?: string;
  WEBHOOK_ALLOWED_PRIVATE_HOSTS?: string;
  DNS_OVER_HTTPS_URL?: string;
}): DestinationRules {
  return {
    allowHttp: env.WEBHOOK_ALLOW_HTTP === '1',
    allowedPrivateHosts: new Set(
      (env.WEBHOOK_ALLOWED_PRIVATE_HOSTS ?? '')
        .split(',')
        .map((host) => host.trim())
        .filter(Boolean),
    ),
    resolverUrl: env.DNS_OVER_HTTPS_URL || DEFAULT_RESOLVER,
  };
}

/** The A and AAAA addresses of a name, by DNS over HTTPS (JSON). Throws when the resolver does not answer. */
export async function resolveAddresses(name: string, resolverUrl: string, signal?: AbortSignal): Promise<string[]> {
  const [four, six] = await Promise.all([
    dnsAnswers(name, 'A', resolverUrl, signal),
    dnsAnswers(name, 'AAAA', resolverUrl, signal),
  ]);
  return [...four, ...six];
}

/**
 * Why a request may not go to `address`, or undefined when it may: a malformed address, another
 * scheme, credentials in it, a private host literal or name, a name that resolves to nothing or
 * to any private address, or a resolver that does not answer.
 */
export async function refusedDestination(
  address: string,
  rules: DestinationRules,
  signal?: AbortSignal,
): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && rules.allowHttp)) return 'must be an https address';
  if (url.username || url.password) return 'must not carry credentials';
  // the URL parser has normalised the host: 0x7f.1 and 2130706433 read as 127.0.0.1
  const host = url.hostname;
  if (rules.allowedPrivateHosts.has(host)) return undefined;
  if (ipLiteral(host))
    return isPublicAddress(host) ? undefined : `${host} is a loopback, private or link-local address`;
  if (isPrivateName(host)) return `${host} names a local or private host`;
  let addresses: string[];
  try {
    addresses = await resolveAddresses(host, rules.resolverUrl, signal);
  } catch {
    return `${host} could not be resolved to check it (try again)`;
  }
  if (addresses.length === 0) return `${host} does not resolve`;
  const hidden = addresses.find((resolved) => !isPublicAddress(resolved));
  return hidden === undefined ? undefined : `${host} resolves to ${hidden}, a loopback, private or link-local address`;
}
