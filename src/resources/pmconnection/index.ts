import { and, eq, sql } from 'drizzle-orm';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../app-env';
import { ADMINS, AGENTS, requireRole } from '../../auth/access';
import { pmConnections, pmLinks } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { addRoute } from '../../http/route';
import { encryptToken, pmTokenContext, TokenKeyError } from '../../lib/crypto';
import { errorBodySchema } from '../../openapi/schemas';
import { tokenKeyMissing } from '../companies/pm-connection';
import { ignoringReadOnly, readJson, RECORD_ENVELOPE, unwrapRecord, validate } from '../engine/body';
import { pmConnectionBodySchema, pmConnectionRecord } from './pmconnection-record';

const error = { description: 'error', schema: errorBodySchema };
const PATH = '/v2/pmconnection.json';

const putBodySchema = ignoringReadOnly(
  z.strictObject({
    // stored without trailing slashes, so `https://pm.test/` and `https://pm.test` are one address
    baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(2048).transform((url) => url.replace(/\/+$/, '')),
    token: z.string().min(1).max(4096),
  }),
  [...RECORD_ENVELOPE, 'hasToken', 'lastSyncedAt'],
);

/**
 * `GET` and `PUT /v2/pmconnection.json`: the installation's link to the project-management
 * product that company sync uses (docs/resources/pmsync.md). The token goes in, never out.
 */
export function pmConnectionRoutes(app: Hono<AppEnv>): void {
  addRoute(app, {
    method: 'get', path: PATH, tag: 'pmconnection', summary: 'The project-management connection',
    responses: { 200: { description: 'the connection, without its token', schema: pmConnectionBodySchema }, 401: error, 403: error, 404: error },
  }, async (c) => {
    const who = c.var.principal;
    requireRole(who, AGENTS);
    const [row] = await c.var.db.http.select().from(pmConnections)
      .where(and(eq(pmConnections.installationId, who.installationId), eq(pmConnections.state, 'active')));
    if (!row) throw ApiError.notFound('pmconnection', 'no project-management connection is configured');
    return c.json({ pmconnection: pmConnectionRecord(row) });
  });

  addRoute(app, {
    method: 'put', path: PATH, tag: 'pmconnection', summary: 'Set the project-management connection',
    body: { schema: putBodySchema, required: true },
    responses: { 200: { description: 'the connection, without its token', schema: pmConnectionBodySchema }, 400: error, 401: error, 403: error, 413: error, 415: error, 503: error },
  }, async (c) => {
    const who = c.var.principal;
    requireRole(who, ADMINS);
    const { baseUrl, token } = validate(putBodySchema, unwrapRecord(await readJson(c), 'pmconnection'), 'pmconnection');
    let tokenCiphertext: string;
    try {
      tokenCiphertext = await encryptToken(token, c.env.PM_TOKEN_KEY, pmTokenContext(who.installationId));
    } catch (err) {
      if (err instanceof TokenKeyError) throw tokenKeyMissing(err);
      throw err;
    }
    const installation = who.installationId;
    const row = await c.var.db.transaction(async (tx) => {
      const [previous] = await tx.select({ baseUrl: pmConnections.baseUrl }).from(pmConnections)
        .where(eq(pmConnections.installationId, installation)).for('update');
      // Remote ids belong to the product they came from: another address starts afresh.
      if (previous && previous.baseUrl !== baseUrl) await tx.delete(pmLinks).where(eq(pmLinks.installationId, installation));
      const [saved] = await tx.insert(pmConnections)
        .values({ installationId: installation, baseUrl, tokenCiphertext, createdBy: who.userId, updatedBy: who.userId })
        .onConflictDoUpdate({
          target: pmConnections.installationId,
          set: {
            baseUrl, tokenCiphertext, updatedBy: who.userId, updatedAt: sql`now()`, state: 'active', deletedAt: null, deletedBy: null,
            ...(previous && previous.baseUrl !== baseUrl ? { lastSyncedAt: null } : {}),
          },
        })
        .returning();
      return saved!;
    });
    return c.json({ pmconnection: pmConnectionRecord(row) });
  });
}
