import { sql } from 'drizzle-orm';
import type { Env } from '../../../app-env';
import { messageHtml, messageText } from '../../../lib/html/message-body';
import { sendingAddresses, type SendingInbox } from '../mail-address';
import { domainVerified } from '../../maildomains/verified-domain';
import { carriesToken, subjectToken } from '../thread-token';

/** A file mailed with a message: read from the bucket when it is sent. */
export interface MailFile {
  id: number;
  name: string;
  type: string;
  key: string;
  disposition: 'attachment' | 'inline';
}

/**
 * A message to send, as `outbound_mails.mail` keeps it: what the send binding takes
 * (`env.EMAIL.send`), but attachments by file, read when sent (a retry sends the same bytes).
 */
export interface OutgoingMail {
  from: { email: string; name: string };
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo?: string;
  subject: string;
  html: string;
  text: string;
  headers: Record<string, string>;
  files: MailFile[];
}

/** Longest value Email Service takes in a header. */
const MAX_HEADER_BYTES = 2048;
/** A subject line's limit (RFC 5322's line length). */
const MAX_SUBJECT_CHARS = 998;

/** One header line's worth: no line breaks (they would start a header of the sender's choosing). */
export const headerText = (text: string): string =>
  text
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/\s{2,}/g, ' ')
    .trim();

/** A Message-ID we may name in `In-Reply-To` or `References`: a real one (not a digest standing for one too long or missing). */
const nameable = (id: string) => id.includes('@') && !id.endsWith('.invalid') && !/[\s<>]/.test(id);

/**
 * `In-Reply-To` and `References` of a message answering a thread: it answers `answering` (the
 * customer's latest message), and refers to the thread's messages oldest first. A long thread's
 * references keep the first and as many of the latest as fit Email Service's 2,048 bytes (what
 * RFC 5322 §3.6.4 suggests dropping: the middle).
 */
export function threadingHeaders(threadIds: readonly string[], answering: string | undefined): Record<string, string> {
  const ids = [...new Set(threadIds.filter(nameable))];
  const headers: Record<string, string> = {};
  const inReplyTo = answering && nameable(answering) ? answering : ids.at(-1);
  if (inReplyTo && inReplyTo.length + 2 <= MAX_HEADER_BYTES) headers['In-Reply-To'] = `<${inReplyTo}>`;
  if (ids.length === 0) return headers;
  const [first, ...rest] = ids.map((id) => `<${id}>`);
  const kept: string[] = [];
  let bytes = new TextEncoder().encode(first!).length;
  if (bytes > MAX_HEADER_BYTES) return headers;
  for (const id of rest.reverse()) {
    const size = new TextEncoder().encode(id).length + 1;
    if (bytes + size > MAX_HEADER_BYTES) break;
    bytes += size;
    kept.unshift(id);
  }
  headers.References = [first, ...kept].join(' ');
  return headers;
}

/** A reply's subject: `Re: ` once, and the ticket's token (`thread-token.ts`), so an answer finds the ticket without its headers. */
export async function replySubject(
  env: Pick<Env, 'PM_TOKEN_KEY'>,
  ticketId: number,
  subject: string,
  options: { answer: boolean },
): Promise<string> {
  const clean = headerText(subject) || '(no subject)';
  const withRe = options.answer && !/^re:/i.test(clean) ? `Re: ${clean}` : clean;
  const token = carriesToken(withRe) ? undefined : await subjectToken(env, ticketId);
  const suffix = token ? ` ${token}` : '';
  return `${withRe.slice(0, MAX_SUBJECT_CHARS - suffix.length)}${suffix}`;
}

/** The inbox's signature under a body, in HTML and in text (a signature is HTML, sanitized as a body is). */
export function signed(body: { html: string; text: string }, signature: string | null): { html: string; text: string } {
  if (!signature?.trim()) return body;
  const html = messageHtml(signature, 'html');
  return {
    html: `${body.html}<br><div class="signature">${html}</div>`,
    text: `${body.text}\n\n-- \n${messageText(html)}`,
  };
}

/** Addresses once each, compared as mail compares them, without `skip` (the customer, already in To). */
export function distinctAddresses(addresses: readonly string[], skip: readonly string[]): string[] {
  const seen = new Set(skip.map((address) => address.toLowerCase()));
  const out: string[] = [];
  for (const address of addresses) {
    const key = address.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(address);
  }
  return out;
}

/**
 * The inbox's sending parts as one column `sender` (the `SendingInbox` that `fromInbox` takes), for
 * a query that joins the inbox as `i` and its installation as `n`.
 */
export const SENDER_COLUMN = sql`json_build_object('name', i.name, 'email', i.email, 'localPart', i.local_part, 'sendEmailsFrom', i.send_emails_from, 'siteName', n.site_name,
  'verifiedDomains', ARRAY(SELECT x FROM unnest(ARRAY[split_part(lower(i.email), '@', 2), split_part(lower(i.send_emails_from), '@', 2)]) AS x
                            WHERE ${domainVerified(sql`i.installation_id`, sql`x`)})) AS sender`;

/** The sender part of a message from an inbox: its address and name, and where answers go. Undefined: the inbox has no address. */
export function fromInbox(
  env: Pick<Env, 'MAIL_DOMAIN'>,
  inbox: SendingInbox,
): Pick<OutgoingMail, 'from' | 'replyTo'> | undefined {
  const addresses = sendingAddresses(env, inbox);
  if (!addresses) return undefined;
  return {
    from: { email: addresses.from, name: headerText(inbox.name).slice(0, 200) },
    ...(addresses.replyTo ? { replyTo: addresses.replyTo } : {}),
  };
}
