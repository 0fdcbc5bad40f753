// Raw RFC 822 messages, and their delivery to the Worker's real `email()` handler through
// Miniflare's local Email Routing endpoint (`POST /cdn-cgi/handler/email?from=&to=`), as
// `wrangler dev` exposes it. The endpoint answers 200 when the handler took the message and 400
// with the handler's `setReject` reason when it refused it.
import { inject } from 'vitest';

export interface RawMail {
  from: string;
  to: string;
  subject?: string;
  messageId?: string;
  inReplyTo?: string;
  references?: string;
  /** extra header lines, as written */
  headers?: string[];
  /**
   * The receiving server's verdict on the sender, the topmost header as Email Routing writes it:
   * by default DMARC, DKIM and SPF passed for the From address's domain; `false` for none; a
   * string for that field whole (`Authentication-Results: ...`).
   */
  authentication?: false | string;
  /** a whole body with its own Content-Type header line first, or plain UTF-8 text */
  body?: string | { contentType: string; transferEncoding?: string; content: string };
}

let counter = 0;
export const newMessageId = () => `m${Date.now().toString(36)}.${++counter}@customer.test`;

/** A message as a mail server hands it over: CRLF lines, the headers, a blank line, the body. */
export function rawMail(mail: RawMail): string {
  const body = mail.body ?? 'Hello, I need help.';
  const fromAddress = /<([^<>]+)>\s*$/.exec(mail.from)?.[1] ?? mail.from;
  const fromDomain = fromAddress.slice(fromAddress.lastIndexOf('@') + 1);
  const authentication =
    mail.authentication === undefined
      ? `ARC-Authentication-Results: i=1; mx.cloudflare.net; dkim=pass header.d=${fromDomain} header.s=s1; dmarc=pass header.from=${fromDomain} policy.dmarc=none; spf=pass (mx.cloudflare.net: domain of ${fromAddress} designates 203.0.113.7 as permitted sender) smtp.mailfrom=${fromAddress}`
      : mail.authentication;
  const lines = [
    ...(authentication ? [authentication] : []),
    'Received: from mx.customer.test ([203.0.113.7]) by mail.localhost; Mon, 23 Nov 2026 10:00:00 +0000',
    `From: ${mail.from}`,
    `To: ${mail.to}`,
    ...(mail.subject !== undefined ? [`Subject: ${mail.subject}`] : []),
    `Message-ID: <${mail.messageId ?? newMessageId()}>`,
    ...(mail.inReplyTo ? [`In-Reply-To: <${mail.inReplyTo}>`] : []),
    ...(mail.references ? [`References: ${mail.references}`] : []),
    'Date: Mon, 23 Nov 2026 10:00:00 +0000',
    'MIME-Version: 1.0',
    ...(mail.headers ?? []),
  ];
  if (typeof body === 'string') {
    lines.push('Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: 8bit', '', body);
  } else {
    lines.push(
      `Content-Type: ${body.contentType}`,
      ...(body.transferEncoding ? [`Content-Transfer-Encoding: ${body.transferEncoding}`] : []),
      '',
      body.content,
    );
  }
  return lines.join('\r\n');
}

/** Hands `raw` (a string, or bytes for other charsets) to the handler, envelope `from` and `to`. */
export async function deliver(
  raw: string | Uint8Array,
  envelope: { from: string; to: string },
): Promise<{ status: number; text: string }> {
  const url = `${inject('workerUrl')}/cdn-cgi/handler/email?${new URLSearchParams(envelope)}`;
  const response = await fetch(url, { method: 'POST', body: raw });
  return { status: response.status, text: await response.text() };
}

/** Sends a message: the envelope is its From and To addresses. */
export function send(mail: RawMail): Promise<{ status: number; text: string }> {
  const address = (value: string) => /<([^<>]+)>\s*$/.exec(value)?.[1] ?? value;
  return deliver(rawMail(mail), { from: address(mail.from), to: address(mail.to) });
}

/** A message the Worker sent through its `EMAIL` binding, as the tests' receiver kept it (`scripts/stack/mail-sender/receiver.ts`). */
export interface SentMail {
  messageId: string;
  from: string | { email: string; name: string };
  to: string | string[];
  cc?: string[];
  bcc?: string[];
  replyTo?: string;
  subject: string;
  html?: string;
  text?: string;
  headers?: Record<string, string>;
  attachments?: Array<{ content: string; filename: string; type: string; disposition: string; contentId?: string }>;
}

/** The messages sent to `address` (To, Cc or Bcc) so far, oldest first. */
export async function sentTo(address: string): Promise<SentMail[]> {
  const response = await fetch(`${inject('mailReceiverUrl')}/sent?to=${encodeURIComponent(address)}`);
  return (await response.json()) as SentMail[];
}

/** The next sends to `address` fail with these Email Service codes, one each, in order. */
export async function planSendFailures(address: string, codes: string[]): Promise<void> {
  const response = await fetch(`${inject('mailReceiverUrl')}/plan`, {
    method: 'POST',
    body: JSON.stringify({ to: address, codes }),
  });
  if (response.status !== 204) throw new Error(`plan failed: ${response.status}`);
}
