// Where the tests' stand-in `EMAIL` binding (`stand-in.js`) sends: a small HTTP server that checks
// each message as Email Service documents it (required fields, at most 50 recipients, its header
// allowlist), keeps it, and answers with a Message-ID; or, for a recipient the test planned
// failures for, with those failures' codes in turn.
//   POST /send            a message, as the binding's builder takes it (attachments in base64)
//   GET  /sent?to=address the messages kept for that address (To, Cc or Bcc), oldest first
//   POST /plan            {"to": address, "codes": ["E_RATE_LIMIT_EXCEEDED", ...]}: the next sends to it fail so
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { readBody } from '../read-body';

type Address = string | { email: string; name?: string };

export interface ReceivedMail {
  messageId: string;
  receivedAt: string;
  from: Address;
  to: Address | Address[];
  cc?: Address | Address[];
  bcc?: Address | Address[];
  replyTo?: Address;
  subject: string;
  html?: string;
  text?: string;
  headers?: Record<string, string>;
  attachments?: Array<{
    content: string;
    filename: string;
    type: string;
    disposition: 'attachment' | 'inline';
    contentId?: string;
  }>;
}

/** The headers Email Service lets a sender set (its "Email headers" reference), lowercase; `X-` ones too. */
const ALLOWED = new Set([
  'in-reply-to',
  'references',
  'list-unsubscribe',
  'list-unsubscribe-post',
  'list-id',
  'list-archive',
  'list-help',
  'list-owner',
  'list-post',
  'list-subscribe',
  'precedence',
  'auto-submitted',
  'content-language',
  'keywords',
  'comments',
  'importance',
  'priority',
  'sensitivity',
  'organization',
  'require-recipient-valid-since',
  'expires',
  'reply-by',
  'archived-at',
]);
const API_FIELDS = new Set(['from', 'to', 'cc', 'bcc', 'subject', 'reply-to']);

class Refusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const list = (value: Address | Address[] | undefined): Address[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];
const emailOf = (address: Address) => (typeof address === 'string' ? address : address.email).toLowerCase();

/** Email Service's checks of a message, as its documentation states them. */
function check(mail: ReceivedMail): void {
  if (!mail.from || !mail.to || !mail.subject)
    throw new Refusal('E_FIELD_MISSING', 'from, to and subject are required');
  if (!mail.html && !mail.text) throw new Refusal('E_FIELD_MISSING', 'html or text is required');
  if (list(mail.to).length + list(mail.cc).length + list(mail.bcc).length > 50)
    throw new Refusal('E_TOO_MANY_RECIPIENTS', 'at most 50 recipients');
  for (const [name, value] of Object.entries(mail.headers ?? {})) {
    const key = name.toLowerCase();
    if (API_FIELDS.has(key))
      throw new Refusal('E_HEADER_USE_API_FIELD', `Header '${name}' must be set via its API field`);
    if (!ALLOWED.has(key) && !/^x-[a-z0-9_-]+$/i.test(name))
      throw new Refusal('E_HEADER_NOT_ALLOWED', `Header '${name}' is not allowed`);
    if (typeof value !== 'string' || value === '' || /[\r\n]/.test(value))
      throw new Refusal('E_HEADER_VALUE_INVALID', `Header '${name}' has an invalid value`);
    if (Buffer.byteLength(value) > 2048)
      throw new Refusal('E_HEADER_VALUE_TOO_LONG', `Header '${name}' value exceeds 2048 byte limit`);
  }
  if (
    mail.headers?.['Auto-Submitted'] &&
    !['auto-generated', 'auto-replied', 'auto-notified'].includes(mail.headers['Auto-Submitted'])
  ) {
    throw new Refusal('E_HEADER_VALUE_INVALID', "Header 'Auto-Submitted' has an invalid value");
  }
}

export async function startMailReceiver(): Promise<{ url: string; stop(): Promise<void> }> {
  const kept: ReceivedMail[] = [];
  const plans = new Map<string, string[]>();
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const json = (status: number, body: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    (async () => {
      if (request.method === 'POST' && url.pathname === '/send') {
        const mail = JSON.parse(await readBody(request)) as ReceivedMail;
        try {
          check(mail);
          for (const address of [...list(mail.to), ...list(mail.cc), ...list(mail.bcc)].map(emailOf)) {
            const code = plans.get(address)?.shift();
            if (code) throw new Refusal(code, `planned failure for ${address}`);
          }
        } catch (error) {
          if (error instanceof Refusal)
            return json(
              error.code === 'E_RATE_LIMIT_EXCEEDED' ? 429 : error.code === 'E_INTERNAL_SERVER_ERROR' ? 500 : 400,
              { code: error.code, message: error.message },
            );
          throw error;
        }
        const messageId = `<${randomUUID()}@stand-in.email.test>`;
        kept.push({ ...mail, messageId, receivedAt: new Date().toISOString() });
        return json(200, { messageId });
      }
      if (request.method === 'GET' && url.pathname === '/sent') {
        const to = (url.searchParams.get('to') ?? '').toLowerCase();
        return json(
          200,
          kept.filter((mail) => [...list(mail.to), ...list(mail.cc), ...list(mail.bcc)].map(emailOf).includes(to)),
        );
      }
      if (request.method === 'POST' && url.pathname === '/plan') {
        const { to, codes } = JSON.parse(await readBody(request)) as { to: string; codes: string[] };
        plans.set(to.toLowerCase(), [...codes]);
        return response.writeHead(204).end();
      }
      json(404, { code: 'NOT_FOUND', message: 'no such route' });
    })().catch((error: unknown) => json(500, { code: 'E_INTERNAL_SERVER_ERROR', message: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}
