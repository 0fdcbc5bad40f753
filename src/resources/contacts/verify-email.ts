import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { hashSecret } from '../../auth/secrets';
import type { Queryable } from '../../db/client';
import { insertEventsFrom, rowsActor } from '../../events/record-events';
import { customerOfEmail } from '../tickets/ticket-customer';
import { textParam } from '../../http/params';
import { defineRoute } from '../../http/route';
import { escapeHtml } from '../../lib/html/message-body';
import { page, PAGE_HEADERS } from '../../lib/html/page';
import { PROOF_DAYS, proofPath } from './email-proof';

const HTML_ANSWER = { 'text/html': { schema: { type: 'string' } } } as const;
const tokenParams = z.object({ token: textParam("the proof link's token (`hdv_…`)").pipe(z.string().max(64)) });

interface Pending {
  id: number;
  installationId: number;
  email: string;
  /** when the chat started, and its first message (what the holder of the link needs to tell whether it was theirs) */
  startedAt: string;
  firstMessage: string | null;
}

/** Whether a link's token has the form of one: any other is answered without asking the database. */
const tokenForm = (token: string) => /^hdv_[A-Za-z0-9]{40}$/.test(token);

/** The contacts a link's token names while its link works: not followed yet, live, within `PROOF_DAYS` (over `contacts k`). */
const working = async (token: string) =>
  sql`k.email_token_hash = ${await hashSecret(token)} AND k.state = 'active' AND k.created_at > now() - make_interval(days => ${PROOF_DAYS})`;

/** The visitor a link's token names, while its link works. */
async function pendingProof(db: Queryable, token: string): Promise<Pending | undefined> {
  if (!tokenForm(token)) return undefined;
  const { rows } = await db.execute(sql`
    SELECT k.id, k.installation_id, k.email, to_char(k.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI "UTC"') AS started_at,
           (SELECT left(m.message, 300) FROM conversation_messages m JOIN conversations c ON c.id = m.conversation_id
             WHERE c.contact_id = k.id AND m.author = 'contact' AND m.state = 'active' ORDER BY m.sent_at, m.id LIMIT 1) AS first_message
      FROM contacts k
     WHERE ${await working(token)}`);
  const row = rows[0];
  return row
    ? {
        id: Number(row.id),
        installationId: Number(row.installation_id),
        email: String(row.email),
        startedAt: String(row.started_at),
        firstMessage: row.first_message === null ? null : String(row.first_message),
      }
    : undefined;
}

const answer = (status: 200 | 404, title: string, content: string) =>
  new Response(page(title, content), { status, headers: PAGE_HEADERS });
const notWorking = () =>
  answer(
    404,
    'Link not valid',
    '<h1>This link does not work</h1><p class="problem" role="alert">It was used already, has expired, or was mistyped.</p>',
  );

/** `GET /v2/contacts/verify/{token}`: the page of a proof link, asking to confirm (a link checker following it confirms nothing). */
export const emailProofPageRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/contacts/verify/{token}',
    tag: 'Conversations',
    operationId: 'contactEmailProofPage',
    public: true,
    summary: "A chat visitor's email proof link: the page that asks them to confirm the address",
    description:
      'The HTML page a chat visitor reaches from the link mailed to prove the email they gave in the widget: it says when the chat started and its first message, and asks to confirm with a button that posts to the same address. Opening it changes nothing, so a mail scanner following the link confirms nothing. A link already used, older than 7 days or naming nothing answers a 404 page. See docs/widget.md.',
    request: { params: tokenParams },
    responses: {
      200: { description: 'the page, with its Confirm button', content: HTML_ANSWER },
      404: { description: 'a page: the link was used, has expired or names nothing', content: HTML_ANSWER },
    },
  },
  async (c) => {
    const proof = await pendingProof(c.var.db.http, c.req.valid('param').token);
    if (!proof) return notWorking() as never;
    return answer(
      200,
      'Confirm your email address',
      `<h1>Confirm your email address</h1>
<p>Confirm that <strong>${escapeHtml(proof.email)}</strong> is yours, and the chat you started is shown with your account.</p>
<p class="who">The chat started ${escapeHtml(proof.startedAt)}${proof.firstMessage ? `, its first message: “${escapeHtml(proof.firstMessage)}”` : ''}. If it was not you, close this page.</p>
<form method="post" action="${escapeHtml(proofPath(c.req.valid('param').token))}"><div class="buttons"><button class="primary" type="submit">Confirm</button></div></form>`,
    ) as never;
  },
);

/**
 * `POST /v2/contacts/verify/{token}`: the visitor confirms: their contact is linked to the
 * installation's customer of that email (if one still has it) and marked proven, and the link
 * stops working. An `updated` event of the contact.
 */
export const confirmEmailProofRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/contacts/verify/{token}',
    tag: 'Conversations',
    operationId: 'confirmContactEmail',
    public: true,
    summary: "Confirm a chat visitor's email from its proof link: the chat is linked to the customer of that address",
    description:
      "The proof page's Confirm button: marks the visitor's email proven, links that chat's contact (no other) to the installation's live customer of that address if one still has it, and makes the link stop working, in one statement with an `updated` event of the contact. Answers an HTML page; a link already used, older than 7 days or naming nothing answers a 404 page. See docs/widget.md.",
    security: [{}],
    request: { params: tokenParams },
    responses: {
      200: { description: 'a page: confirmed', content: HTML_ANSWER },
      404: { description: 'a page: the link was used, has expired or names nothing', content: HTML_ANSWER },
    },
  },
  async (c) => {
    const { token } = c.req.valid('param');
    if (!tokenForm(token)) return notWorking() as never;
    // one statement, one exchange: the contact the link names while it works is confirmed, with its event (the widget's, in the contact's installation)
    const [confirmed] = await c.var.db.batch([
      sql`
    WITH changed AS (
      UPDATE contacts k SET email_token_hash = NULL, email_verified_at = now(), updated_at = now(),
             customer_id = coalesce(k.customer_id, ${customerOfEmail(sql`k.installation_id`, sql`k.email`)})
       WHERE ${await working(token)}
      RETURNING k.id, k.installation_id),
    logged AS (${insertEventsFrom(sql`changed`, rowsActor('widget'), 'contacts', 'updated', sql`jsonb_build_object('emailVerified', jsonb_build_object('before', false, 'after', true))`)})
    SELECT id FROM changed`,
    ]);
    if (confirmed!.length === 0) return notWorking() as never;
    return answer(200, 'Email confirmed', '<h1>Thank you</h1><p>Your email address is confirmed.</p>') as never;
  },
);
