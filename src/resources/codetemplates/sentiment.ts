import { z } from 'zod';
import { codeTemplateSentiments, SENTIMENT_TONES } from '../../db/schema';
import { idValue } from '../../http/params';
import { writableRecord } from '../../http/record-body';
import { recordSchema, refProperty } from '../../engine';
import type { RecordShape } from '../../engine';

/** A code template's sentiment settings as they read: `{"sentiment": {...}}`. */
export const sentimentShape: RecordShape = {
  type: 'sentiments',
  component: 'Sentiment',
  table: codeTemplateSentiments,
  properties: {
    codeTemplate: refProperty(codeTemplateSentiments.codeTemplateId, 'codetemplates', false),
    tone: codeTemplateSentiments.tone,
    threshold: codeTemplateSentiments.threshold,
    enabled: codeTemplateSentiments.enabled,
  },
};

/**
 * The body of `PATCH /v2/codetemplates/{id}.json`. `codeTemplate` is fixed by the path; it is
 * accepted (as a reference or an id) so that a record read can be sent back, and must then
 * name the template of the path.
 */
export const sentimentRecord = writableRecord({
  tone: z.enum(SENTIMENT_TONES).optional(),
  // A 4-byte real: Postgres refuses what would underflow it (1e-50), so keep 6 decimals.
  threshold: z
    .number()
    .min(0)
    .max(1)
    .transform((value) => Math.round(value * 1e6) / 1e6)
    .optional(),
  enabled: z.boolean().optional(),
  codeTemplate: z
    .union([idValue, z.object({ id: idValue, type: z.literal('codetemplates').optional() }).transform((ref) => ref.id)])
    .nullable()
    .optional(),
}).meta({ id: 'SentimentUpdate' });

/** What the settings read as: the shape's own schema. */
export const sentimentRecordSchema = recordSchema(sentimentShape);
