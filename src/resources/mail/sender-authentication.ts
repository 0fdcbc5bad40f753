/**
 * Whether a message's `From` is the sender's own, as the receiving mail server judged it (RFC
 * 8601). Email Routing checks SPF, DKIM and DMARC on arrival and writes its verdicts at the top of
 * the message (`ARC-Authentication-Results` and `Authentication-Results`, authserv-id
 * `mx.cloudflare.net`). Only that topmost field counts: any below it came with the message and
 * could be the sender's own invention (§7.1).
 */

/** The authserv-id of Email Routing's inbound servers. */
export const EMAIL_ROUTING_AUTHSERV_ID = 'mx.cloudflare.net';

export type SenderCheck = { verified: true } | { verified: false; why: string };

const RESULT_FIELDS = new Set(['arc-authentication-results', 'authentication-results']);

/** `method=result` with its properties (`header.from=acme.com`), each clause of a results field. */
function clausesOf(value: string): Array<{ method: string; result: string; props: Map<string, string> }> {
  return value
    .replace(/\([^()]*\)/g, ' ') // comments
    .split(';')
    .slice(1)
    .map((clause) => {
      const [head, ...rest] = clause.trim().split(/\s+/);
      const [method, result] = (head ?? '').toLowerCase().split('=');
      const props = new Map<string, string>();
      for (const token of rest) {
        const at = token.indexOf('=');
        if (at > 0)
          props.set(
            token.slice(0, at).toLowerCase(),
            token
              .slice(at + 1)
              .replace(/^"|"$/g, '')
              .toLowerCase(),
          );
      }
      return { method: method ?? '', result: result ?? '', props };
    });
}

/** The authserv-id of a results field: its first clause, after an ARC instance (`i=1`) and without a version. */
function authservIdOf(value: string): string {
  const parts = value.split(';').map((part) => part.trim());
  const first = /^i=\d+$/i.test(parts[0] ?? '') ? parts[1] : parts[0];
  return (first ?? '').split(/\s+/)[0]!.toLowerCase();
}

/** `domain` is `fromDomain` or a domain above it: DMARC's relaxed alignment (without the public-suffix list). */
const aligned = (domain: string | undefined, fromDomain: string) =>
  !!domain && domain.includes('.') && (fromDomain === domain || fromDomain.endsWith(`.${domain}`));

/**
 * Whether `fromAddress` is vouched for by the topmost results field of `headers` (lowercase keys,
 * in the message's order), written by `authservId`: DMARC passed for the From domain, or DKIM or
 * SPF passed for a domain aligned with it.
 */
export function checkSender(
  headers: ReadonlyArray<{ key: string; value: string }>,
  fromAddress: string,
  authservId = EMAIL_ROUTING_AUTHSERV_ID,
): SenderCheck {
  const fromDomain = fromAddress.slice(fromAddress.lastIndexOf('@') + 1).toLowerCase();
  const field = headers.find((header) => RESULT_FIELDS.has(header.key.toLowerCase()));
  if (!field) return { verified: false, why: 'the message carries no authentication results' };
  if (authservIdOf(field.value) !== authservId.toLowerCase())
    return { verified: false, why: `its authentication results are not ${authservId}'s` };
  const clauses = clausesOf(field.value);
  const passed = (method: string, domainOf: (props: Map<string, string>) => string | undefined) =>
    clauses.some(
      (clause) => clause.method === method && clause.result === 'pass' && aligned(domainOf(clause.props), fromDomain),
    );
  if (passed('dmarc', (props) => props.get('header.from'))) return { verified: true };
  if (passed('dkim', (props) => props.get('header.d') ?? props.get('header.i')?.replace(/^.*@/, '')))
    return { verified: true };
  if (passed('spf', (props) => props.get('smtp.mailfrom')?.replace(/^.*@/, ''))) return { verified: true };
  return { verified: false, why: `neither DMARC, DKIM nor SPF passed for ${fromDomain}` };
}
