import type { PgColumn } from 'drizzle-orm/pg-core';
import { businessHours } from '../../db/schema';
import type { WritableField } from '../../engine';
import { idValue } from '../../http/params';

/**
 * `businesshours_id` of a schedule or a holiday: the integer id of live business hours of the
 * caller's installation (a 400 naming the property otherwise), plain on the wire as the spec
 * names it rather than a `{"id", "type"}` reference.
 */
export function businessHoursIdField(column: PgColumn): WritableField {
  return {
    column,
    schema: idValue,
    required: true,
    references: { table: businessHours, type: 'businesshours' },
  };
}
