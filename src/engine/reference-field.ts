import type { PgColumn } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { idValue } from '../http/params';
import { refProperty } from './record-json';
import type { AuditedTable, WritableField } from './types';

/** A reference as a client may send it: `{"id": 7, "type": "inboxes"}` (with `meta`, ignored), or the bare id 7; an id may be its digits (`"7"`). */
export function referenceInput(type: string) {
  // Go's client sends a reference it built as `{"id": 5, "type": "", "meta": null}`: an empty type is no type
  return z.union(
    [
      idValue,
      z
        .object({
          id: idValue,
          type: z
            .union([z.literal(type), z.literal('')])
            .nullable()
            .optional(),
          meta: z.unknown().optional(),
        })
        .transform((ref) => ref.id),
    ],
    {
      error: `must be a reference to ${type}, {"id": N}, or its id N`,
    },
  );
}

/**
 * A property naming another record of the installation (a canned response's `inbox`): it reads
 * as `{"id", "type"}` or null, takes a reference or an id, and must name a live record of the
 * caller's installation.
 */
export function referenceField(
  column: PgColumn,
  target: { table: AuditedTable; type: string },
  options: { required?: boolean; readOnly?: boolean } = {},
): WritableField {
  const schema = referenceInput(target.type);
  return {
    column,
    schema: options.required ? schema : schema.nullable(),
    required: options.required,
    readOnly: options.readOnly,
    output: refProperty(column, target.type, !column.notNull),
    references: target,
  };
}
