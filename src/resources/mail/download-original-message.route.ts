import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { EVERYONE } from '../../auth/access';
import { recordScope } from '../../engine';
import { ApiError } from '../../http/errors';
import { integerParam } from '../../http/params';
import { defineRoute } from '../../http/route';
import { attachmentResponse } from '../files/attachment-response';
import { ticketsResource } from '../tickets/tickets.resource';

/**
 * `GET /v2/tickets/{id}/messages/{messageId}/original.eml`: the message a thread entry came in as,
 * byte for byte (`message/rfc822`), while it is kept (`RAW_KEPT_DAYS`), for a caller who sees the
 * ticket. Served as an attachment, never rendered.
 */
export const downloadOriginalMessageRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/tickets/{id}/messages/{messageId}/original.eml',
    tag: 'Tickets',
    operationId: 'downloadOriginalMessage',
    roles: EVERYONE,
    summary: 'Download the mail a thread entry came in as',
    description:
      'The message a live thread entry came in as by mail, byte for byte (`message/rfc822`), served as an attachment and never rendered. The raw mail is kept for 30 days and then deleted by the cron; a ticket the caller does not see, an entry that did not come by mail, or a mail no longer kept is a 404. See docs/resources/mail.md.',
    request: {
      params: z.object({ id: integerParam("the ticket's id"), messageId: integerParam("the thread entry's id") }),
    },
    responses: {
      200: {
        description: 'the raw message',
        content: {
          'message/rfc822': {
            schema: z.string().meta({ format: 'binary', description: 'the message as it was received' }),
          },
        },
      },
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { id, messageId } = c.req.valid('param');
    const { rows } = await c.var.db.http.execute(sql`
    SELECT r.raw_key FROM ticket_messages m
      JOIN inbound_mails r ON r.installation_id = m.installation_id AND r.message_id = m.email_message_id AND r.outcome IN ('ticket', 'reply')
     WHERE m.id = ${messageId} AND m.ticket_id = ${id} AND m.installation_id = ${who.installationId} AND m.state = 'active'
       AND r.thread_entry_id = m.id AND r.raw_key IS NOT NULL
       AND EXISTS (SELECT 1 FROM tickets WHERE tickets.id = ${id} AND ${recordScope(ticketsResource, who)})`);
    const key = rows[0]?.raw_key as string | undefined;
    if (!key) throw ApiError.notFound('messageId', `no kept mail for thread entry ${messageId} of ticket ${id}`);
    const object = await c.env.FILES.get(key);
    if (!object) throw ApiError.notFound('messageId', `the mail of thread entry ${messageId} is gone`);
    return attachmentResponse(object, 'message/rfc822', `message-${messageId}.eml`) as never;
  },
);
