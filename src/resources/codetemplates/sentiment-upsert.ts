import { and, eq, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { AGENTS } from '../../auth/access';
import { refuseWhen } from '../../db/refusal';
import { codeTemplates, codeTemplateSentiments } from '../../db/schema';
import { finishRecord, includesParam, recordJson, tenantScope } from '../../engine';
import { recordEventsStatement } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { idParams } from '../../http/params';
import { recordBody } from '../../http/record-body';
import { jsonResponse } from '../../http/responses';
import { defineRoute, type ApiRoute } from '../../http/route';
import { sentimentRecord, sentimentRecordSchema, sentimentShape } from './sentiment';

const answer = z.object({ sentiment: sentimentRecordSchema, included: z.object({}) }).meta({ id: 'SentimentBody' });

/**
 * `PATCH /v2/codetemplates/{id}.json` (and PUT with PATCH's meaning): upserts the one sentiment
 * row of a code template: the first PATCH creates it (column defaults merged with the body),
 * later ones change exactly the properties sent. The unique index on `code_template_id` makes
 * concurrent first PATCHes safe. An event of the template says what changed. One exchange.
 */
export function sentimentUpsertRoute(method: 'patch' | 'put'): ApiRoute {
  return defineRoute(
    {
      method,
      path: '/v2/codetemplates/{id}.json',
      tag: 'CodeTemplates',
      operationId: method === 'patch' ? 'updateCodeTemplateSentiment' : 'replaceCodeTemplateSentiment',
      roles: AGENTS,
      summary:
        method === 'patch'
          ? "Set a code template's sentiment settings"
          : "Set a code template's sentiment settings (PUT, with PATCH's meaning)",
      description: `${method === 'put' ? "Accepted under PUT with PATCH's meaning. " : ''}Sets the sentiment settings of a code template (which tone of customer message it answers, the threshold, whether it is enabled), not the template itself. The first call creates the one settings row, the defaults merged with the body; later ones change exactly the properties sent, with an \`updated\` event of the template. A template of another installation, deleted or not there is a 404 and nothing is created; a \`codeTemplate\` other than the path's, a wrong type or a threshold outside 0 to 1 is a 400 naming the property. See docs/resources/codetemplates.md.`,
      request: {
        params: idParams,
        query: z.object({ includes: includesParam([]) }),
        body: { required: true, content: { 'application/json': { schema: recordBody('sentiment', sentimentRecord) } } },
      },
      example: { body: { sentiment: { tone: 'negative', threshold: 0.7, enabled: true } } },
      responses: { 200: jsonResponse('the sentiment settings', answer) },
    },
    async (c) => {
      const who = c.var.principal;
      const { id } = c.req.valid('param');
      const body = c.req.valid('json');
      if (body.codeTemplate != null && body.codeTemplate !== id) {
        throw ApiError.invalid('sentiment.codeTemplate', `must be the code template of the path (${id}) or left out`);
      }
      const changes: Record<string, unknown> = {};
      if (body.tone !== undefined) changes.tone = body.tone;
      if (body.threshold !== undefined) changes.threshold = body.threshold;
      if (body.enabled !== undefined) changes.enabled = body.enabled;

      // one batch: the template checked, the row upserted (another installation's is not changed:
      // no row, the same 404), its event, and the row read back
      const http = c.var.db.http;
      const notFound = `code template ${id} not found`;
      const upsert = http
        .insert(codeTemplateSentiments)
        .values({
          ...changes,
          codeTemplateId: id,
          installationId: who.installationId,
          createdBy: who.userId,
          updatedBy: who.userId,
        })
        .onConflictDoUpdate({
          target: codeTemplateSentiments.codeTemplateId,
          set: { ...changes, updatedAt: sql`now()`, updatedBy: who.userId },
          setWhere: eq(codeTemplateSentiments.installationId, who.installationId),
        })
        .returning({ id: codeTemplateSentiments.id })
        .getSQL();
      const template = sql`SELECT 1 FROM ${codeTemplates} WHERE ${and(tenantScope(codeTemplates, who.installationId), eq(codeTemplates.id, id))}`;
      const statements = [
        refuseWhen(sql`NOT EXISTS (${template})`, 404, 'id', notFound),
        sql`WITH saved AS (${upsert}) ${refuseWhen(sql`NOT EXISTS (SELECT 1 FROM saved)`, 404, 'id', notFound)}`,
        recordEventsStatement(who, [
          { recordType: 'codetemplates', recordId: id, kind: 'updated', data: { sentiment: changes } },
        ]),
        sql`SELECT ${recordJson(sentimentShape)} AS record FROM ${codeTemplateSentiments}
           WHERE ${codeTemplateSentiments.codeTemplateId} = ${id} AND ${codeTemplateSentiments.installationId} = ${who.installationId}`,
      ];
      const results = await c.var.db.batch(statements.filter((statement): statement is SQL => statement !== undefined));
      const record = finishRecord(results.at(-1)![0]!.record as Record<string, unknown>);
      return c.json({ sentiment: record, included: {} }, 200);
    },
  );
}
