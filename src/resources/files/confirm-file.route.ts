import { and, eq, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { ADMINS, EVERYONE } from '../../auth/access';
import type { Principal } from '../../auth/principal';
import { FILE_DISPOSITIONS, files } from '../../db/schema';
import { recordScope, schemasOf, sendWithReadBack, updateStatement, type Writer } from '../../engine';
import { idParams } from '../../http/params';
import { writableRecord } from '../../http/record-body';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { fileOfResponse, filenameSchema } from './file-body';
import { filesResource } from './files.resource';

const confirmInput = writableRecord(
  {
    filename: filenameSchema.optional(),
    disposition: z.enum(FILE_DISPOSITIONS).optional(),
    mimeType: z.string().optional().meta({ description: 'as uploaded: a different type is a 400' }),
  },
  ['size', 'uploadedAt', 'confirmedAt'],
).meta({ id: 'FileConfirm' });

/** The platform client's FileResponse (`{url, params, file}`), `{file}` or the bare file: the file is what counts. */
const confirmBody = fileOfResponse(confirmInput);

const s = schemasOf(filesResource);

/**
 * The confirmation's statements, sent as one batch with the read-back (one round trip): the file
 * locked and its checks in one statement, each failure the 4xx it always was (404 not the
 * caller's to write, 403 not the uploader, 409 the bytes not in, 400 another type than uploaded),
 * then the change with its event. A repeat changes nothing (no event).
 */
function confirmation(db: Writer, who: Principal, id: number, input: z.infer<typeof confirmInput>): SQL[] {
  const where = and(recordScope(filesResource, who, false, 'write'), eq(files.id, id))!;
  const mayConfirm = ADMINS.includes(who.role) ? sql`true` : sql`f.created_by = ${who.userId}`;
  const typed = input.mimeType === undefined ? sql`true` : sql`f.content_type = ${input.mimeType.toLowerCase()}`;
  const check = sql`WITH f AS (SELECT ${files.createdBy} AS created_by, ${files.uploadedAt} AS uploaded_at, ${files.contentType} AS content_type FROM ${files} WHERE ${where} FOR UPDATE)
    SELECT CASE
      WHEN NOT EXISTS (SELECT 1 FROM f) THEN desk_refuse(404, 'id', ${`file ${id} not found`}::text)
      WHEN NOT (SELECT ${mayConfirm} FROM f) THEN desk_refuse(403, '', 'only the uploader, an owner or an admin confirms a file')
      WHEN (SELECT f.uploaded_at IS NULL FROM f) THEN desk_refuse(409, 'id', 'the bytes have not arrived: post the form from POST /v2/files/ref.json first')
      WHEN NOT (SELECT ${typed} FROM f) THEN desk_refuse(400, 'file.mimeType', (SELECT 'the file was uploaded as ' || f.content_type FROM f))
    END`;
  const values: Record<string, unknown> = { confirmedAt: sql`coalesce(${files.confirmedAt}, now())` };
  if (input.filename !== undefined) values.name = input.filename;
  if (input.disposition !== undefined) values.disposition = input.disposition;
  const watched = { filename: files.name, disposition: files.disposition, confirmedAt: files.confirmedAt };
  return [check, updateStatement(db, who, { table: files, type: 'files', where: eq(files.id, id) }, values, watched)];
}

/**
 * `PATCH /v2/files/{id}.json`: step three, the file confirmed once its bytes are in (409 before),
 * optionally renamed; only a confirmed file can be attached. Confirming twice changes nothing. The
 * body is optional: no body, an empty one or `{}` confirms the file as it is.
 * The uploader confirms, or an owner or admin.
 */
export const confirmFileRoute = defineRoute(
  {
    method: 'patch',
    path: '/v2/files/{id}.json',
    tag: 'Files',
    operationId: 'confirmFile',
    roles: EVERYONE,
    summary: 'Confirm an uploaded file',
    description:
      'Step three of an upload: confirms the file once its bytes are in, optionally renaming it or changing its `disposition`; only a confirmed file can be attached. The body is optional (no body, or `{}`, confirms the file as it is) and confirming twice changes nothing. Only the uploader, an owner or an admin confirms (403); a `mimeType` other than uploaded is a 400, a file whose bytes have not arrived a 409, and a file the caller may not write a 404. Records an `updated` event of the file. See docs/resources/files.md.',
    // no body at all confirms as it is: the platform's step three is a bare PATCH
    request: { params: idParams, body: { required: false, content: { 'application/json': { schema: confirmBody } } } },
    responses: {
      200: jsonResponse('the confirmed file', s.one),
      409: errorResponse('the bytes have not been uploaded yet'),
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { id } = c.req.valid('param');
    const input = c.req.valid('json');
    const body = await sendWithReadBack(
      c.var.db,
      filesResource,
      who,
      confirmation(c.var.db.http, who, id, input),
      sql`${id}::int`,
      [],
    );
    if (!body) throw new Error(`file ${id} is not there to read back`);
    return c.json(body as z.infer<typeof s.one>, 200);
  },
);
