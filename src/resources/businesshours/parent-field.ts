import type { PgColumn } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { businessHours } from '../../db/schema';
import type { WritableField } from '../../engine';

/**
 * `businesshours_id` of a schedule or a holiday: the integer id of live business hours of the
 * caller's installation (a 400 naming the property otherwise), plain on the wire as the spec
 * names it rather than a `{"id", "type"}` reference.
 */
export function businessHoursIdField(column: PgColumn): WritableField {
  return {
    column,
    schema: z.number().int().positive().max(2_147_483_647),
    required: true,
    references: { table: businessHours, type: 'businesshours' },
  };
}
