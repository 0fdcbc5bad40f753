import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { ADMINS } from '../../auth/access';
import { remember } from '../../db/refusal';
import { pmConnections, pmLinks } from '../../db/schema';
import { insertEventsFrom } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { recordBody, writableRecord } from '../../http/record-body';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { encryptToken, pmTokenContext } from '../../lib/crypto';
import { refusedPmAddress } from '../companies/pm-connection';
import { pmConnectionBodySchema, pmConnectionJson, pmConnectionRecord } from './pmconnection-record';

const putRecord = writableRecord(
  {
    // stored without trailing slashes, so `https://pm.test/` and `https://pm.test` are one address
    baseUrl: z
      .url({ protocol: /^https?$/, error: 'must be an https URL' })
      .max(2048)
      .transform((url) => url.replace(/\/+$/, ''))
      .meta({
        description:
          'https, at a public address (a name resolving only to public addresses): the token is sent there; redirects are not followed',
      }),
    token: z.string().min(1).max(4096),
  },
  ['hasToken', 'lastSyncedAt'],
).meta({ id: 'PmConnectionInput' });

/**
 * `PUT /v2/pmconnection.json`: sets the address and token (encrypted at rest); another address
 * forgets the remote ids. The address must be one the product may be called at (`refusedPmAddress`).
 */
export const setPmConnectionRoute = defineRoute(
  {
    method: 'put',
    path: '/v2/pmconnection.json',
    tag: 'PmConnection',
    operationId: 'setPmConnection',
    roles: ADMINS,
    summary: 'Set the project-management connection',
    description:
      "Sets the product's `baseUrl` and `token` (both required), replacing any previous setting; the token is stored encrypted and never answered. The address must be https at a public address (a name resolving only to public addresses), else a 400 naming `pmconnection.baseUrl` with the reason and nothing stored. A different `baseUrl` forgets the remote ids synchronised so far and `lastSyncedAt`; records a `created` or `updated` event of the connection. A server without a usable token key (`PM_TOKEN_KEY`) answers 503. See docs/resources/pmsync.md.",
    request: {
      body: { required: true, content: { 'application/json': { schema: recordBody('pmconnection', putRecord) } } },
    },
    example: { body: { pmconnection: { baseUrl: 'https://projects.acme.example', token: 'your-project-tool-token' } } },
    responses: {
      200: jsonResponse('the connection, without its token', pmConnectionBodySchema),
      503: errorResponse('the server cannot handle project-management tokens (PM_TOKEN_KEY)'),
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { baseUrl, token } = c.req.valid('json');
    const refused = await refusedPmAddress(baseUrl, c.env);
    if (refused) throw ApiError.invalid('pmconnection.baseUrl', refused);
    const tokenCiphertext = await encryptToken(token, c.env.PM_TOKEN_KEY, pmTokenContext(who.installationId));
    const installation = who.installationId;
    const http = c.var.db.http;
    // One batch. The stored address (none: '') is locked and handed on; remote ids belong to the
    // product they came from, so another address forgets them and the last sync.
    const previous = sql`current_setting('desk.pm_previous')`;
    const moved = sql`(${previous} NOT IN ('', ${baseUrl}::text))`;
    const saved = http
      .insert(pmConnections)
      .values({ installationId: installation, baseUrl, tokenCiphertext, createdBy: who.userId, updatedBy: who.userId })
      .onConflictDoUpdate({
        target: pmConnections.installationId,
        set: {
          baseUrl,
          tokenCiphertext,
          updatedBy: who.userId,
          updatedAt: sql`now()`,
          state: 'active',
          deletedAt: null,
          deletedBy: null,
          lastSyncedAt: sql`CASE WHEN ${moved} THEN NULL ELSE ${pmConnections.lastSyncedAt} END`,
        },
      })
      .returning({ id: pmConnections.id })
      .getSQL();
    const change = sql`jsonb_build_object('baseUrl', jsonb_build_object('before', ${previous}, 'after', ${baseUrl}::text))`;
    const results = await c.var.db.batch([
      sql`SELECT ${remember('pm_previous', sql`coalesce((SELECT ${pmConnections.baseUrl} FROM ${pmConnections} WHERE ${pmConnections.installationId} = ${installation} FOR UPDATE), '')`)}`,
      sql`DELETE FROM ${pmLinks} WHERE ${pmLinks.installationId} = ${installation} AND ${moved}`,
      sql`WITH saved AS (${saved}),
      made AS (${insertEventsFrom(sql`saved`, who, 'pmconnections', 'created', undefined, sql`${previous} = ''`)}),
      changed AS (${insertEventsFrom(sql`saved`, who, 'pmconnections', 'updated', sql`CASE WHEN ${moved} THEN ${change} ELSE '{}'::jsonb END`, sql`${previous} <> ''`)})
      SELECT id FROM saved`,
      sql`SELECT ${pmConnectionJson} AS record FROM ${pmConnections} WHERE ${pmConnections.installationId} = ${installation}`,
    ]);
    return c.json({ pmconnection: pmConnectionRecord(results.at(-1)![0]!.record), included: {} }, 200);
  },
);
