import { sql } from 'drizzle-orm';
import { insertEventsFrom, rowsActor } from '../../events/record-events';
import { defineRoute } from '../../http/route';
import { customerOfEmail } from '../tickets/ticket-customer';
import { answer, HTML_ANSWER, notWorking, tokenForm, tokenParams, working } from './email-proof-page';

/**
 * `POST /v2/contacts/verify/{token}`: the visitor confirms: their contact is linked to the
 * installation's customer of that email (if one still has it) and marked proven, and the link
 * stops working. An `updated` event of the contact.
 */
export const confirmContactEmailRoute = defineRoute(
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
