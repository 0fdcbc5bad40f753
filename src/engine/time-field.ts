import type { PgColumn } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { timeProperty } from './record-json';
import type { WritableField } from './types';

/** A time the server sets (a due time, a last try): read as the wire's time or null, never written. */
export function readOnlyTimeField(column: PgColumn, description: string): WritableField {
  return { column, schema: z.string().nullable().meta({ description }), readOnly: true, output: timeProperty(column) };
}
