import type { PgColumn } from 'drizzle-orm/pg-core';
import { businessHours } from '../../db/schema';
import { referenceField, referenceInput, type WritableField } from '../../engine';
import { ApiError } from '../../http/errors';
import { idValue } from '../../http/params';

const target = { table: businessHours, type: 'businesshours' };

/**
 * The business hours a schedule or a holiday belongs to, in both of the platform's forms, one
 * column: `businesshours_id` (the integer id, as the spec names it) and `businesshours` (a
 * reference `{"id": N}`, as the platform's samples send it). Either names live business hours of
 * the caller's installation (a 400 naming the property otherwise); both read back on every record.
 * One of them is required on create (`requireParent`, from the write hook: the create schema
 * cannot say "one of two").
 */
export function businessHoursParentFields(column: PgColumn): {
  businesshours_id: WritableField;
  businesshours: WritableField;
} {
  return {
    businesshours_id: { column, schema: idValue, references: target },
    businesshours: { ...referenceField(column, target), schema: referenceInput('businesshours') },
  };
}

/** On create one of the two forms, and when both are sent, the same business hours. */
export function requireParent(singular: string, record: Record<string, unknown>, id: number | undefined): void {
  const { businesshours_id: plain, businesshours: reference } = record;
  if (plain !== undefined && reference !== undefined && plain !== reference) {
    throw ApiError.invalid(
      `${singular}.businesshours`,
      'names other business hours than `businesshours_id`: give one of them',
    );
  }
  if (id === undefined && plain === undefined && reference === undefined) {
    throw ApiError.invalid(
      `${singular}.businesshours_id`,
      'required: the business hours, as `businesshours_id` or `businesshours` {"id"}',
    );
  }
}
