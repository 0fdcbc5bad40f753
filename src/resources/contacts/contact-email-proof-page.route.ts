import { sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { defineRoute } from '../../http/route';
import { escapeHtml } from '../../lib/html/message-body';
import { proofPath } from './email-proof';
import { answer, HTML_ANSWER, notWorking, tokenForm, tokenParams, working } from './email-proof-page';

interface Pending {
  id: number;
  installationId: number;
  email: string;
  /** when the chat started, and its first message (what the holder of the link needs to tell whether it was theirs) */
  startedAt: string;
  firstMessage: string | null;
}

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

/** `GET /v2/contacts/verify/{token}`: the page of a proof link, asking to confirm (a link checker following it confirms nothing). */
export const contactEmailProofPageRoute = defineRoute(
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
