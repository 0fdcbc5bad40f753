import { z } from 'zod';
import { codeTemplateSentiments, SENTIMENT_TONES } from '../../db/schema';
import { ignoringReadOnly, RECORD_ENVELOPE } from '../engine/body';
import { refJson } from '../engine/record-json';
import type { RecordShape } from '../engine/resource';

/** A code template's sentiment settings as they read: `{"sentiment": {...}}`. */
export const sentimentShape: RecordShape = {
  type: 'sentiments',
  table: codeTemplateSentiments,
  properties: {
    codeTemplate: refJson(codeTemplateSentiments.codeTemplateId, 'codetemplates'),
    tone: codeTemplateSentiments.tone,
    threshold: codeTemplateSentiments.threshold,
    enabled: codeTemplateSentiments.enabled,
  },
};

const templateId = z.number().int().positive().max(2_147_483_647);

/**
 * The body of `PATCH /v2/codetemplates/{id}.json`. `codeTemplate` is fixed by the path; it is
 * accepted (as a reference or an id) so that a record read can be sent back, and must then
 * name the template of the path.
 */
export const sentimentBodySchema = ignoringReadOnly(
  z.strictObject({
    tone: z.enum(SENTIMENT_TONES).optional(),
    // A 4-byte real: Postgres refuses what would underflow it (1e-50), so keep 6 decimals.
    threshold: z.number().min(0).max(1).transform((value) => Math.round(value * 1e6) / 1e6).optional(),
    enabled: z.boolean().optional(),
    codeTemplate: z
      .union([templateId, z.object({ id: templateId, type: z.literal('codetemplates').optional() }).transform((ref) => ref.id)])
      .nullable()
      .optional(),
  }),
  RECORD_ENVELOPE,
);

const reference = z.object({ id: z.number().int(), type: z.string() });

export const sentimentRecordSchema = z
  .object({
    id: z.number().int(),
    type: z.literal('sentiments'),
    codeTemplate: reference,
    tone: z.enum(SENTIMENT_TONES),
    threshold: z.number().min(0).max(1),
    enabled: z.boolean(),
    state: z.enum(['active', 'deleted']),
    createdAt: z.iso.datetime(),
    createdBy: reference.nullable(),
    updatedAt: z.iso.datetime(),
    updatedBy: reference.nullable(),
  })
  .meta({ id: 'sentiment' });
