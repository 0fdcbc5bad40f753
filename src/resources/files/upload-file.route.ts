import { and, eq, isNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import { files } from '../../db/schema';
import { tenantScope } from '../../engine';
import { readBodyBytes } from '../../http/body-bytes';
import { ApiError } from '../../http/errors';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { MAX_FILE_BYTES, parseStorageKey, uploadTokenHash } from './upload-policy';

/** Room for the form's other fields and the multipart framing beside the file. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

const tooLarge = () =>
  new ApiError(413, [{ code: 'tooLarge', source: 'file', detail: `a file is at most ${MAX_FILE_BYTES} bytes` }]);
const refused = () =>
  ApiError.forbidden('the upload form is not valid: ask for a new one with POST /v2/files/ref.json');

const uploaded = z.object({ key: z.string(), size: z.number().int() }).meta({ id: 'FileUploaded' });

/** The text of a form field, or a 400 naming it. */
function field(form: FormData, name: string): string {
  const value = form.get(name);
  if (typeof value !== 'string' || value === '')
    throw ApiError.invalid(name, 'must be sent: the value from `params` of POST /v2/files/ref.json');
  return value;
}

/**
 * `POST /v2/files/upload`: step two, the bytes. No API key: the form fields handed out by
 * `POST /v2/files/ref.json` authorize it (the one-time signature over the policy, before it
 * expires, once). The object goes to the FILES bucket under the key the form names.
 */
export const uploadFileRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/files/upload',
    tag: 'Files',
    operationId: 'uploadFile',
    public: true,
    summary: "Upload a file's bytes with the form from POST /v2/files/ref.json",
    description: `A multipart/form-data body: every field of \`params\` as given, and the bytes as the field \`file\` (1 to ${MAX_FILE_BYTES} bytes). 201 once stored; 403 for a form that is forged, expired or used.`,
    // Plain JSON Schema, not zod: the route reads the form itself, within its size limit.
    request: {
      body: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              properties: {
                key: { type: 'string', description: '`params.key` from POST /v2/files/ref.json' },
                bucket: { type: 'string', description: '`params.bucket`, as given' },
                policy: { type: 'string', description: '`params.policy`, as given' },
                success_action_status: { type: 'string', description: '`params.success_action_status`, as given' },
                'x-amz-algorithm': { type: 'string', description: '`params.x-amz-algorithm`, as given' },
                'x-amz-credential': { type: 'string', description: '`params.x-amz-credential`, as given' },
                'x-amz-date': { type: 'string', description: '`params.x-amz-date`, as given' },
                'x-amz-signature': { type: 'string', description: '`params.x-amz-signature`, as given' },
                'Content-Type': {
                  type: 'string',
                  description: 'the type the file was announced with (`params.Content-Type`)',
                },
                file: {
                  type: 'string',
                  format: 'binary',
                  description: `the bytes, 1 to ${MAX_FILE_BYTES}; the last field`,
                },
              },
              required: ['key', 'policy', 'x-amz-signature', 'Content-Type', 'file'],
            },
          },
        },
      },
    },
    // the fields are the ref's answer, as they are (the walk of examples sends the ones it got)
    example: {
      body: {
        key: '<params.key>',
        bucket: '<params.bucket>',
        policy: '<params.policy>',
        success_action_status: '201',
        'x-amz-algorithm': '<params.x-amz-algorithm>',
        'x-amz-credential': '<params.x-amz-credential>',
        'x-amz-date': '<params.x-amz-date>',
        'x-amz-signature': '<params.x-amz-signature>',
        'Content-Type': 'application/pdf',
        file: '<the bytes of invoice-2026-11.pdf>',
      },
    },
    responses: {
      201: jsonResponse('the bytes are stored; confirm the file with PATCH /v2/files/{id}.json', uploaded),
      403: errorResponse('the form is forged, expired or for another file'),
      409: errorResponse('the form was used: the file is uploaded'),
      413: errorResponse(`the file is over ${MAX_FILE_BYTES} bytes`),
      415: errorResponse('the body is not multipart/form-data'),
    },
  },
  async (c) => {
    const type = c.req.header('content-type') ?? '';
    if (!/^multipart\/form-data\s*;/i.test(type))
      throw new ApiError(415, [
        { code: 'unsupportedMediaType', source: 'body', detail: 'send the form as multipart/form-data' },
      ]);
    const bytes = await readBodyBytes(c.req.raw, MAX_FILE_BYTES + FORM_OVERHEAD_BYTES, tooLarge);
    let form: FormData;
    try {
      form = await new Response(bytes, { headers: { 'content-type': type } }).formData();
    } catch {
      throw ApiError.invalid('body', 'not a readable multipart/form-data body');
    }
    const key = field(form, 'key');
    const policy = field(form, 'policy');
    const signature = field(form, 'x-amz-signature');
    const contentType = field(form, 'Content-Type').toLowerCase();
    const file = form.get('file') as File | string | null;
    if (file === null || typeof file === 'string')
      throw ApiError.invalid('file', 'must be sent: the bytes, as a file field');
    if (file.size === 0) throw ApiError.invalid('file', 'is empty');
    if (file.size > MAX_FILE_BYTES) throw tooLarge();
    const named = parseStorageKey(key);
    if (!named) throw refused();
    const db = c.var.db.http;
    const where = and(tenantScope(files, named.installationId), eq(files.id, named.fileId), eq(files.storageKey, key));
    const [row] = await db
      .select({
        hash: files.uploadTokenHash,
        expiresAt: files.uploadExpiresAt,
        uploadedAt: files.uploadedAt,
        contentType: files.contentType,
      })
      .from(files)
      .where(where);
    if (!row || row.hash === null || row.hash !== (await uploadTokenHash(signature, policy))) throw refused();
    if (row.uploadedAt !== null) throw ApiError.conflict('key', 'this form was used: the file is uploaded');
    if (row.expiresAt === null || row.expiresAt.getTime() < Date.now()) throw refused();
    if (contentType !== row.contentType)
      throw ApiError.invalid('Content-Type', `must be ${row.contentType}, as the form says`);
    await c.env.FILES.put(key, file.stream(), { httpMetadata: { contentType: row.contentType } });
    // only the first upload of a form counts: a second one racing it changes nothing here
    const marked = await db
      .update(files)
      .set({ uploadedAt: sql`now()`, size: file.size, uploadTokenHash: null })
      .where(and(where, isNull(files.uploadedAt)))
      .returning({ id: files.id });
    if (marked.length === 0) throw ApiError.conflict('key', 'this form was used: the file is uploaded');
    return c.json({ key, size: file.size }, 201);
  },
);
