import { makeZip, predictLength } from 'client-zip';
import { and, asc, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Env } from '../../app-env';
import { EVERYONE } from '../../auth/access';
import { files } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { integerParam } from '../../http/params';
import { defineRoute } from '../../http/route';
import { log } from '../../lib/log';
import { attachedToTicket, readableTicket } from './ticket-files';
import { zipEntryNames } from './zip-names';

interface ZipEntry {
  id: number;
  key: string;
  name: string;
  size: number;
  lastModified: Date;
}

/**
 * Each entry's bytes as the zip reaches it: the R2 object's body, streamed, never buffered (the
 * zip asks for the next object only once the previous one is sent). The archive's length was
 * announced from the stored sizes, so an object gone or of another size ends the stream with an
 * error (the client sees a short download, never a corrupt archive that looks whole).
 */
async function* entryBytes(env: Env, entries: readonly ZipEntry[]) {
  for (const entry of entries) {
    const object = await env.FILES.get(entry.key);
    if (!object || object.size !== entry.size) {
      log('error', 'files zip: an object is missing or changed', {
        fileId: entry.id,
        expected: entry.size,
        found: object?.size ?? null,
      });
      throw new Error(`the bytes of file ${entry.id} are missing or changed`);
    }
    yield { name: entry.name, input: object.body, size: entry.size, lastModified: entry.lastModified };
  }
}

/**
 * `GET /v2/tickets/{id}/files.zip`: every file `GET /v2/tickets/{id}/files/{fileId}/download`
 * would serve for the ticket, in one zip streamed as it is read (STORE, no compression; ZIP64
 * past 4 GB; `client-zip`), so its size never weighs on the Worker's memory. Entries are named as
 * the files, made safe and numbered when repeated (`zip-names.ts`). A ticket without files is an
 * empty zip; one the caller cannot read a 404.
 */
export const downloadTicketFilesZipRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/tickets/{id}/files.zip',
    tag: 'Files',
    operationId: 'downloadTicketFilesZip',
    roles: EVERYONE,
    summary: "Download every file of a ticket's thread as one zip",
    description:
      'The files of the live thread entries, oldest upload first, uncompressed (STORE). A ticket without files answers an empty zip.',
    request: { params: z.object({ id: integerParam("the ticket's id") }) },
    responses: {
      200: {
        description: 'the zip, streamed; `Content-Length` is known up front',
        headers: z.object({
          'Content-Disposition': z.string().meta({ example: 'attachment; filename="ticket-12-files.zip"' }),
        }),
        content: { 'application/zip': { schema: z.string().meta({ format: 'binary' }) } },
      },
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { id } = c.req.valid('param');
    const db = c.var.db.http;
    const rows = await db
      .select({ id: files.id, key: files.storageKey, name: files.name, size: files.size, uploadedAt: files.uploadedAt })
      .from(files)
      .where(and(attachedToTicket(who, id), readableTicket(who, id), sql`${files.storageKey} IS NOT NULL`))
      .orderBy(asc(files.id));
    if (rows.length === 0) {
      const {
        rows: [seen],
      } = await db.execute(sql`SELECT ${readableTicket(who, id)} AS readable`);
      if (!seen?.readable) throw ApiError.notFound('id', `ticket ${id} not found`);
    }
    const names = zipEntryNames(rows.map((row) => ({ id: Number(row.id), name: row.name })));
    const entries: ZipEntry[] = rows.map((row, index) => ({
      id: Number(row.id),
      key: row.key!,
      name: names[index]!,
      size: Number(row.size),
      lastModified: row.uploadedAt ?? new Date(0),
    }));
    // a stream's answer carries a Content-Length only through a FixedLengthStream, which also
    // refuses to end short or long of it
    const sized = new FixedLengthStream(predictLength(entries.map(({ name, size }) => ({ name, size }))));
    makeZip(entryBytes(c.env, entries))
      .pipeTo(sized.writable)
      .catch((error: unknown) => {
        log('error', 'files zip: the stream ended early', {
          ticketId: id,
          error: error instanceof Error ? error.message : String(error),
        });
      });
    return new Response(sized.readable, {
      headers: {
        'content-type': 'application/zip',
        'content-disposition': `attachment; filename="ticket-${id}-files.zip"`,
        'x-content-type-options': 'nosniff',
        'cache-control': 'private, no-store',
      },
    }) as never;
  },
);
