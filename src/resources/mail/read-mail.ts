import type { Attachment, Email, Mailbox } from 'postal-mime';
import { emailAddress } from '../../lib/field-schemas';
import { textToHtml } from '../../lib/html/message-body';
import { plainAddress } from './mail-address';
import { markInlineImages } from './mail-files';
import { withoutQuotedHtml, withoutQuotedText } from './quoted-history';
import { checkSender, type SenderCheck } from './sender-authentication';

/** What the mail channel takes from a parsed message. */
export interface InboundMail {
  /** `Message-ID` without angle brackets; one made from the message's digest when it has none */
  messageId: string;
  /** the ids `In-Reply-To` and `References` name, nearest first */
  repliesTo: string[];
  sender: { address: string; firstName: string; lastName: string } | undefined;
  subject: string;
  /** the body as HTML (a plain-text one made HTML), not yet sanitized */
  html: string;
  /** the same without the history it quotes (`quoted-history.ts`): what a reply shows in its thread */
  replyHtml: string;
  /** sent by a machine (RFC 3834 `Auto-Submitted`, a bulk or list `Precedence`, a bounce): never answered automatically */
  automatic: boolean;
  /** the spam score an upstream filter gave it (`X-Spam-Score`, SpamAssassin's `X-Spam-Status: score=`, `X-Rspamd-Score`); none when no filter scored it */
  spamScore: number | undefined;
  /** IP addresses of the hop that handed the message to us (the topmost `Received` header) */
  senderIps: string[];
  /** attachments and inline images, their `cid:` references in `html` marked (`mail-files.ts`) */
  attachments: Attachment[];
  /** whether the receiving server vouched for `sender` (`sender-authentication.ts`) */
  senderCheck: SenderCheck;
}

const ANGLE_IDS = /<([^<>\s]+)>/g;

/** The ids of a header like `References: <a@x> <b@y>`, in order; one bare id too. */
function idsOf(value: string | undefined): string[] {
  if (!value) return [];
  const bracketed = [...value.matchAll(ANGLE_IDS)].map((match) => match[1]!);
  if (bracketed.length) return bracketed;
  const bare = value.trim();
  return bare && !/\s/.test(bare) ? [bare] : [];
}

const header = (mail: Email, key: string) => mail.headers.find((h) => h.key === key)?.value;

async function digestId(bytes: Uint8Array, kind: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return `${[...digest.slice(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('')}@${kind}.invalid`;
}

/** Longest id kept as it is: the stored ids are unique keys, and a btree entry holds at most about 2.7 kB. */
const MAX_ID_CHARS = 250;

/** An id as it is stored and compared: itself, or its digest when longer than an index takes (the same for the id and a reply naming it). */
export function storedId(id: string): Promise<string> | string {
  return id.length <= MAX_ID_CHARS ? storable(id) : digestId(new TextEncoder().encode(id), 'long-message-id');
}

/** Text Postgres stores: no NUL characters (a decoded part may carry them; the API refuses them in bodies). */
export const storable = (text: string): string => text.replaceAll('\u0000', '');

function senderOf(mail: Email): InboundMail['sender'] {
  const from = (mail.from?.group ? mail.from.group[0] : mail.from) as Mailbox | undefined;
  const replyTo = mail.replyTo?.find((address): address is Mailbox => !address.group);
  const mailbox = from?.address ? from : replyTo;
  // an address no customer could have (no @, too long...) is no sender
  if (!mailbox?.address || !emailAddress.safeParse(plainAddress(mailbox.address)).success) return undefined;
  const [firstName = '', ...rest] = (mailbox.name || '').trim().split(/\s+/);
  return {
    address: plainAddress(mailbox.address),
    firstName: storable(firstName).slice(0, 255),
    lastName: storable(rest.join(' ')).slice(0, 255),
  };
}

function isAutomatic(mail: Email): boolean {
  const autoSubmitted = header(mail, 'auto-submitted')?.trim().toLowerCase();
  if (autoSubmitted && autoSubmitted !== 'no') return true;
  if (/^(bulk|list|junk|auto_reply)$/i.test(header(mail, 'precedence')?.trim() ?? '')) return true;
  if (header(mail, 'list-id') || header(mail, 'x-autoreply') || header(mail, 'x-autorespond')) return true;
  // a bounce: the null sender, or a delivery report
  return (
    (mail.returnPath !== undefined && mail.returnPath.replace(/[<>\s]/g, '') === '') ||
    /multipart\/report/i.test(header(mail, 'content-type') ?? '')
  );
}

/**
 * The score of the first spam filter that scored the message on its way here, as the filters
 * write it: `X-Spam-Score: 7.2` (SpamAssassin, Rspamd, most hosted filters), `X-Spam-Status:
 * Yes, score=7.2 required=5.0` (SpamAssassin), `X-Rspamd-Score: 7.2`. A sender can write these
 * headers too: a message can only make itself spam with them, never less (no score is no score).
 */
function spamScoreOf(mail: Email): number | undefined {
  const candidates = [
    header(mail, 'x-spam-score'),
    /score=(-?\d+(?:\.\d+)?)/i.exec(header(mail, 'x-spam-status') ?? '')?.[1],
    header(mail, 'x-rspamd-score'),
  ];
  for (const candidate of candidates) {
    const score = Number.parseFloat(candidate?.trim() ?? '');
    if (Number.isFinite(score) && Math.abs(score) < 1e6) return score;
  }
  return undefined;
}

function senderIpsOf(mail: Email): string[] {
  const received = header(mail, 'received') ?? '';
  const ips = [
    ...received.matchAll(/\[((?:\d{1,3}\.){3}\d{1,3}|[0-9a-f:]*:[0-9a-f:.]+)\]|\(((?:\d{1,3}\.){3}\d{1,3})\)/gi),
  ].map((match) => (match[1] ?? match[2])!.toLowerCase());
  return [...new Set(ips)];
}

/** The parts of a message the channel uses. */
export async function readMail(mail: Email, raw: Uint8Array, authservId?: string): Promise<InboundMail> {
  const named = idsOf(mail.messageId)[0];
  const messageId = named === undefined ? await digestId(raw, 'no-message-id') : await storedId(named);
  const repliesTo = await Promise.all(
    [...new Set([...idsOf(mail.inReplyTo), ...idsOf(mail.references).reverse()])].slice(0, 50).map(storedId),
  );
  const htmlPart = storable(mail.html ?? '');
  const textPart = storable(mail.text ?? '');
  const isHtml = htmlPart.trim() !== '';
  const html = markInlineImages(isHtml ? htmlPart : textToHtml(textPart), mail.attachments);
  const replyHtml = markInlineImages(
    isHtml ? withoutQuotedHtml(htmlPart) : textToHtml(withoutQuotedText(textPart)),
    mail.attachments,
  );
  return {
    messageId,
    repliesTo,
    sender: senderOf(mail),
    subject: storable(mail.subject ?? '')
      .replace(/\s+/g, ' ')
      .trim(),
    html,
    replyHtml,
    automatic: isAutomatic(mail),
    spamScore: spamScoreOf(mail),
    senderIps: senderIpsOf(mail),
    attachments: mail.attachments,
    senderCheck: checkSender(mail.headers, senderOf(mail)?.address ?? '', authservId),
  };
}
