import { and, eq, sql } from 'drizzle-orm';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../app-env';
import { AGENTS, requireRole } from '../../auth/access';
import { codeTemplates, codeTemplateSentiments } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { addRoute, pathParam } from '../../http/route';
import { errorBodySchema } from '../../openapi/schemas';
import { readJson, unwrapRecord, validate } from '../engine/body';
import { parseIncludes } from '../engine/list-params';
import { finishRecord, recordJson } from '../engine/record-json';
import { tenantScope } from '../engine/scope';
import { sentimentBodySchema, sentimentRecordSchema, sentimentShape } from './sentiment';

/**
 * Upserts the one sentiment row of a code template: the first PATCH creates it (column
 * defaults merged with the body), later ones change exactly the properties sent. The unique
 * index on `code_template_id` makes concurrent first PATCHes safe.
 */
async function updateSentiment(c: Context<AppEnv>) {
  const who = c.var.principal;
  requireRole(who, AGENTS);
  const id = pathParam(c, 'id');
  parseIncludes(c.req.query('includes'), []);
  const body = validate(sentimentBodySchema, unwrapRecord(await readJson(c), 'sentiment'), 'sentiment');
  if (body.codeTemplate != null && body.codeTemplate !== id) {
    throw ApiError.invalid('sentiment.codeTemplate', `must be the code template of the path (${id}) or left out`);
  }
  const changes: Record<string, unknown> = {};
  if (body.tone !== undefined) changes.tone = body.tone;
  if (body.threshold !== undefined) changes.threshold = body.threshold;
  if (body.enabled !== undefined) changes.enabled = body.enabled;

  const record = await c.var.db.transaction(async (tx) => {
    const template = await tx
      .select({ id: codeTemplates.id })
      .from(codeTemplates)
      .where(and(tenantScope(codeTemplates, who.installationId), eq(codeTemplates.id, id)));
    if (template.length === 0) throw ApiError.notFound('id', `code template ${id} not found`);
    const [row] = await tx
      .insert(codeTemplateSentiments)
      .values({ ...changes, codeTemplateId: id, installationId: who.installationId, createdBy: who.userId, updatedBy: who.userId })
      .onConflictDoUpdate({
        target: codeTemplateSentiments.codeTemplateId,
        set: { ...changes, updatedAt: sql`now()`, updatedBy: who.userId },
        setWhere: eq(codeTemplateSentiments.installationId, who.installationId),
      })
      .returning({ id: codeTemplateSentiments.id });
    if (!row) throw ApiError.notFound('id', `code template ${id} not found`);
    const { rows } = await tx.execute(
      sql`SELECT ${recordJson(sentimentShape)} AS record FROM ${codeTemplateSentiments} WHERE ${codeTemplateSentiments.id} = ${row.id}`,
    );
    return finishRecord(rows[0]!.record as Record<string, unknown>);
  });
  return c.json({ sentiment: record, included: {} });
}

const answer = z.object({ sentiment: sentimentRecordSchema, included: z.record(z.string(), z.array(z.unknown())) });
const errors = Object.fromEntries([400, 401, 403, 404, 413, 415].map((status) => [status, { description: 'error', schema: errorBodySchema }]));

/** `PATCH /v2/codetemplates/{id}.json` (and PUT with PATCH's meaning): a code template's sentiment settings. */
export function updateSentimentRoutes(app: Hono<AppEnv>): void {
  for (const method of ['patch', 'put'] as const) {
    addRoute(app, {
      method,
      path: '/v2/codetemplates/{id}.json',
      tag: 'codetemplates',
      summary: method === 'patch' ? "Set a code template's sentiment settings" : "Set a code template's sentiment settings (PUT, with PATCH's meaning)",
      body: { schema: sentimentBodySchema, required: true },
      responses: { 200: { description: 'the sentiment settings', schema: answer }, ...errors },
    }, updateSentiment);
  }
}
