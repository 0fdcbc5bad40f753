import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { ADMINS, EVERYONE } from '../../auth/access';
import { FILE_DISPOSITIONS, files } from '../../db/schema';
import { readBack, recordScope, schemasOf, updateRecords } from '../../engine';
import { ApiError } from '../../http/errors';
import { idParams } from '../../http/params';
import { writableRecord } from '../../http/record-body';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { fileOfResponse, filenameSchema } from './file-body';
import { filesResource } from './files.resource';

const confirmInput = writableRecord({
  filename: filenameSchema.optional(),
  disposition: z.enum(FILE_DISPOSITIONS).optional(),
  mimeType: z.string().optional().meta({ description: 'as uploaded: a different type is a 400' }),
}, ['size', 'uploadedAt', 'confirmedAt']).meta({ id: 'FileConfirm' });

/** The platform client's FileResponse (`{url, params, file}`), `{file}` or the bare file: the file is what counts. */
const confirmBody = fileOfResponse(confirmInput);

const s = schemasOf(filesResource);

/**
 * `PATCH /v2/files/{id}.json`: step three, the file confirmed once its bytes are in (409 before),
 * optionally renamed; only a confirmed file can be attached. Confirming twice changes nothing. The
 * body is optional: no body, an empty one or `{}` confirms the file as it is.
 * The uploader confirms, or an owner or admin.
 */
export const confirmFileRoute = defineRoute({
  method: 'patch', path: '/v2/files/{id}.json', tag: 'Files', operationId: 'confirmFile', roles: EVERYONE,
  summary: 'Confirm an uploaded file',
  // no body at all confirms as it is: the platform's step three is a bare PATCH
  request: { params: idParams, body: { required: false, content: { 'application/json': { schema: confirmBody } } } },
  responses: { 200: jsonResponse('the confirmed file', s.one), 409: errorResponse('the bytes have not been uploaded yet') },
}, async (c) => {
  const who = c.var.principal;
  const { id } = c.req.valid('param');
  const input = c.req.valid('json');
  const body = await c.var.db.transaction(async (tx) => {
    const where = and(recordScope(filesResource, who, false, 'write'), eq(files.id, id));
    const [file] = await tx.select({ createdBy: files.createdBy, uploadedAt: files.uploadedAt, contentType: files.contentType }).from(files).where(where).for('update');
    if (!file) throw ApiError.notFound('id', `file ${id} not found`);
    if (file.createdBy !== who.userId && !ADMINS.includes(who.role)) throw ApiError.forbidden('only the uploader, an owner or an admin confirms a file');
    if (file.uploadedAt === null) throw ApiError.conflict('id', 'the bytes have not arrived: post the form from POST /v2/files/ref.json first');
    if (input.mimeType !== undefined && input.mimeType.toLowerCase() !== file.contentType) throw ApiError.invalid('file.mimeType', `the file was uploaded as ${file.contentType}`);
    const values: Record<string, unknown> = { confirmedAt: sql`coalesce(${files.confirmedAt}, now())` };
    if (input.filename !== undefined) values.name = input.filename;
    if (input.disposition !== undefined) values.disposition = input.disposition;
    await updateRecords(tx, who, { table: files, type: 'files', where: eq(files.id, id) }, values, { filename: files.name, disposition: files.disposition, confirmedAt: files.confirmedAt });
    return readBack(tx, filesResource, who, id, []);
  });
  return c.json(body as z.infer<typeof s.one>, 200);
});
