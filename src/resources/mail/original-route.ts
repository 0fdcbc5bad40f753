import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { EVERYONE } from '../../auth/access';
import { recordScope } from '../../engine';
import { ApiError } from '../../http/errors';
import { integerParam } from '../../http/params';
import { defineRoute } from '../../http/route';
import { ticketsResource } from '../tickets/tickets.resource';

/**
 * `GET /v2/tickets/{id}/messages/{messageId}/original.eml`: the message a thread entry came in as,
 * byte for byte (`message/rfc822`), while it is kept (`RAW_KEPT_DAYS`), for a caller who sees the
 * ticket. Served as an attachment, never rendered.
 */
export const originalMessageRoute = defineRoute({
  method: 'get', path: '/v2/tickets/{id}/messages/{messageId}/original.eml', tag: 'Tickets', operationId: 'downloadOriginalMessage', roles: EVERYONE,
  summary: 'Download the mail a thread entry came in as',
  request: { params: z.object({ id: integerParam("the ticket's id"), messageId: integerParam("the thread entry's id") }) },
  responses: { 200: { description: 'the raw message', content: { 'message/rfc822': { schema: z.string().meta({ format: 'binary', description: 'the message as it was received' }) } } } },
}, async (c) => {
  const who = c.var.principal;
  const { id, messageId } = c.req.valid('param');
  const { rows } = await c.var.db.http.execute(sql`
    SELECT r.raw_key FROM inbound_mails r JOIN ticket_messages m ON m.id = r.thread_entry_id AND m.state = 'active'
     WHERE r.installation_id = ${who.installationId} AND r.thread_entry_id = ${messageId} AND r.ticket_id = ${id} AND m.ticket_id = ${id}
       AND r.outcome IN ('ticket', 'reply') AND r.raw_key IS NOT NULL
       AND EXISTS (SELECT 1 FROM tickets WHERE tickets.id = ${id} AND ${recordScope(ticketsResource, who)})`);
  const key = rows[0]?.raw_key as string | undefined;
  if (!key) throw ApiError.notFound('messageId', `no kept mail for thread entry ${messageId} of ticket ${id}`);
  const object = await c.env.FILES.get(key);
  if (!object) throw ApiError.notFound('messageId', `the mail of thread entry ${messageId} is gone`);
  return new Response(object.body, {
    headers: {
      'content-type': 'message/rfc822',
      'content-length': String(object.size),
      'content-disposition': `attachment; filename="message-${messageId}.eml"`,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "sandbox; default-src 'none'",
      'cache-control': 'private, no-store',
    },
  }) as never;
});
