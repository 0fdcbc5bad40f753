import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { EVERYONE } from '../../auth/access';
import { FILE_DISPOSITIONS, files } from '../../db/schema';
import { createStatement, reserveId, schemasOf, sendWithReadBack } from '../../engine';
import { writableRecord } from '../../http/record-body';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { fileOfResponse, filenameSchema } from './file-body';
import { filesResource } from './files.resource';
import { storageKey, UPLOAD_TTL_MINUTES, uploadFields } from './upload-policy';

/** A MIME type as `type/subtype`, without parameters. */
const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i;

/** A file as the platform's client describes it: bare, or as `file` inside its FileResponse (whose `url` and `params` are ignored). */
const fileInput = writableRecord(
  {
    filename: filenameSchema,
    mimeType: z.string().regex(MIME, 'a MIME type, as application/pdf').max(255),
    disposition: z.enum(FILE_DISPOSITIONS).optional(),
  },
  ['size', 'uploadedAt', 'confirmedAt'],
).meta({ id: 'FileRefCreate' });

export const fileRefBody = fileOfResponse(fileInput);

const s = schemasOf(filesResource);

const uploadForm = z.object({
  'Content-Type': z.string(),
  bucket: z.string(),
  key: z.string(),
  policy: z.string().meta({ description: 'base64 JSON: the key, type, size range and expiry this upload may have' }),
  success_action_status: z.string(),
  'x-amz-algorithm': z.string(),
  'x-amz-credential': z.string(),
  'x-amz-date': z.string(),
  'x-amz-signature': z.string().meta({ description: 'a one-time token bound to the policy' }),
});

export const fileRefAnswer = z
  .object({
    url: z.string().meta({ description: "where to POST the form: this service's own upload endpoint" }),
    params: uploadForm.meta({ description: 'the form fields to post with the file (field `file`), as they are' }),
    file: s.record,
    included: s.one.shape.included,
  })
  .meta({ id: 'FileRefBody' });

/**
 * `POST /v2/files/ref.json`: step one of an upload. Answers the form to post the bytes with (to
 * `POST /v2/files/upload`, good for an hour), and the file, pending until the bytes arrive and
 * `PATCH /v2/files/{id}.json` confirms it. Two exchanges with the database: the file's id taken
 * from the sequence (its key names it), then the insert and its read-back in one batch.
 */
export const createFileRefRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/files/ref.json',
    tag: 'Files',
    operationId: 'createFileRef',
    roles: EVERYONE,
    summary: 'Start an upload: the form to post the file with',
    description:
      "Step one of an upload: from `filename`, `mimeType` and `disposition` (bare, or as `file` inside the platform client's FileResponse), makes a pending file and answers 201 with it, the `url` of `POST /v2/files/upload` and the form `params` to post the bytes with. The form works once, within 60 minutes, for that key and type; then `PATCH /v2/files/{id}.json` confirms the file, and an upload not confirmed is removed 24 hours later. A name with slashes or control characters, or a type that is not `type/subtype`, is a 400. See docs/resources/files.md.",
    request: { body: { required: true, content: { 'application/json': { schema: fileRefBody } } } },
    example: { body: { file: { filename: 'invoice-2026-11.pdf', mimeType: 'application/pdf' } } },
    responses: { 201: jsonResponse('the upload form and the pending file', fileRefAnswer) },
  },
  async (c) => {
    const who = c.var.principal;
    const input = c.req.valid('json');
    const expiresAt = new Date(Date.now() + UPLOAD_TTL_MINUTES * 60_000);
    const url = new URL('/v2/files/upload', c.req.url).toString();
    // the form's key names the file's id: taken from the table's sequence first, the insert takes it (two exchanges)
    const id = await reserveId(c.var.db.http, files);
    const key = storageKey(who.installationId, id);
    const form = await uploadFields(key, input.mimeType.toLowerCase(), expiresAt);
    const row = {
      id,
      name: input.filename,
      contentType: input.mimeType.toLowerCase(),
      disposition: input.disposition ?? 'attachment',
      storageKey: key,
      uploadTokenHash: form.tokenHash,
      uploadExpiresAt: expiresAt,
    };
    const read = await sendWithReadBack(
      c.var.db,
      filesResource,
      who,
      [createStatement(c.var.db.http, who, { table: files, type: filesResource.type }, [row])],
      sql`${id}::int`,
      [],
    );
    if (read === null) throw new Error(`the new file ${id} is not there to read back`);
    const body = { url, params: form.fields, file: read.file, included: read.included };
    return c.json(body as z.infer<typeof fileRefAnswer>, 201);
  },
);
