import type { PgColumn } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { refJson } from './record-json';
import type { AuditedTable, WritableField } from './resource';

/** A reference as a client may send it: `{"id": 7, "type": "inboxes"}`, or the bare id 7. */
function referenceSchema(type: string) {
  const id = z.number().int().positive().max(2_147_483_647);
  return z.union([id, z.object({ id, type: z.literal(type).optional() }).transform((ref) => ref.id)]);
}

/**
 * A property naming another record of the installation (a canned response's `inbox`): it reads
 * as `{"id", "type"}` or null, takes a reference or an id, and must name a live record of the
 * caller's installation.
 */
export function referenceField(column: PgColumn, target: { table: AuditedTable; type: string }, options: { required?: boolean } = {}): WritableField {
  const schema = referenceSchema(target.type);
  return {
    column,
    schema: options.required ? schema : schema.nullable(),
    required: options.required,
    output: refJson(column, target.type),
    references: target,
  };
}
