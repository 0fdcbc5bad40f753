import { z } from 'zod';
import { auditProperties } from './record-json';
import type { RecordShape } from './types';
import { wireSchema } from './wire';

const memo = new WeakMap<RecordShape, z.ZodObject>();

/**
 * The schema of a record as it reads, made from its shape: the same columns and expressions the
 * record's SQL is built from. `id` and `type` are always there; every other property may be
 * left out by `fields` (a sparse field set), so the document marks it optional.
 */
export function recordSchema(shape: RecordShape, references: Record<string, z.ZodType> = {}): z.ZodObject {
  const plain = Object.keys(references).length === 0;
  const known = plain ? memo.get(shape) : undefined;
  if (known) return known;
  const properties: Record<string, z.ZodType> = { id: z.number().int() };
  if (!('type' in shape.properties)) properties.type = z.literal(shape.type);
  for (const [name, value] of Object.entries(shape.properties)) properties[name] = wireSchema(value).optional();
  for (const [name, schema] of Object.entries(references)) properties[name] = schema.optional();
  const audit = auditProperties(shape.table);
  for (const [name, value] of Object.entries(audit)) properties[name] = wireSchema(value).optional();
  properties.deletedAt = z.iso.datetime().optional().meta({ description: 'only once deleted' });
  properties.deletedBy = (wireSchema(audit.deletedBy!) as z.ZodType)
    .optional()
    .meta({ description: 'only once deleted' });
  const schema = z.object(properties);
  const named = shape.component ? schema.meta({ id: shape.component }) : schema;
  if (plain) memo.set(shape, named);
  return named;
}
