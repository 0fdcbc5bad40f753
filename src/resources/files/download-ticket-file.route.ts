import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { EVERYONE } from '../../auth/access';
import { files } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { integerParam } from '../../http/params';
import { defineRoute } from '../../http/route';
import { attachmentResponse } from './attachment-response';
import { attachedToTicket, readableTicket } from './ticket-files';

/**
 * `GET /v2/tickets/{id}/files/{fileId}/download`: a file attached to one of the ticket's live
 * thread entries, for a caller who sees the ticket. Always served as an attachment, never
 * sniffed or run, whatever its type says (an uploaded HTML page cannot script our origin).
 */
export const downloadTicketFileRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/tickets/{id}/files/{fileId}/download',
    tag: 'Files',
    operationId: 'downloadTicketFile',
    roles: EVERYONE,
    summary: "Download a file of a ticket's thread",
    description:
      "The bytes of a file attached to one of the ticket's live thread entries, with the type it was uploaded as, always as an attachment (`Content-Disposition: attachment`, `nosniff`, a sandboxing Content-Security-Policy, never cached), so an uploaded HTML page cannot run script on our origin. A ticket the caller does not see, a file not attached to it, or bytes no longer stored, is a 404. See docs/resources/files.md.",
    request: { params: z.object({ id: integerParam("the ticket's id"), fileId: integerParam("the file's id") }) },
    responses: {
      200: {
        description: 'the bytes, as uploaded',
        content: {
          '*/*': {
            schema: z.string().meta({ format: 'binary', description: 'served with the type it was uploaded as' }),
          },
        },
      },
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { id, fileId } = c.req.valid('param');
    const [file] = await c.var.db.http
      .select({ key: files.storageKey, name: files.name, contentType: files.contentType })
      .from(files)
      .where(and(eq(files.id, fileId), attachedToTicket(who, id), readableTicket(who, id)));
    if (!file?.key) throw ApiError.notFound('fileId', `no file ${fileId} on ticket ${id}`);
    const object = await c.env.FILES.get(file.key);
    if (!object) throw ApiError.notFound('fileId', `the bytes of file ${fileId} are gone`);
    return attachmentResponse(object, file.contentType, file.name) as never;
  },
);
