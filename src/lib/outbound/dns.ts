/** DNS record types by number, as DNS over HTTPS answers them. */
export const DNS_TYPES = { A: 1, TXT: 16, AAAA: 28 } as const;

type DnsType = keyof typeof DNS_TYPES;

/**
 * The answers of one DNS question, by DNS over HTTPS in its JSON form (`application/dns-json`, as
 * Cloudflare's and Google's resolvers serve it): the records of that type only (a CNAME the
 * resolver followed is left out). Throws when the resolver does not answer.
 */
export async function dnsAnswers(
  name: string,
  type: DnsType,
  resolverUrl: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const url = new URL(resolverUrl);
  url.searchParams.set('name', name);
  url.searchParams.set('type', type);
  const response = await fetch(url, { headers: { accept: 'application/dns-json' }, signal, redirect: 'manual' });
  if (!response.ok) throw new Error(`the resolver answered ${response.status}`);
  const body = (await response.json()) as { Status?: number; Answer?: { type: number; data: string }[] };
  return (body.Answer ?? []).filter((answer) => answer.type === DNS_TYPES[type]).map((answer) => String(answer.data));
}

/**
 * A TXT record's text from the resolver's `data`: its character strings (each quoted, with `\"`
 * and `\\` escaped) joined, as RFC 7208 §3.3 reads a record split into several.
 */
export function txtText(data: string): string {
  const strings = [...data.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!.replace(/\\(.)/g, '$1'));
  return strings.length ? strings.join('') : data;
}
