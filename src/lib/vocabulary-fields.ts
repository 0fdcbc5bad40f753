import type { PgColumn } from 'drizzle-orm/pg-core';
import { z } from 'zod';

/** The properties the ticket vocabulary (tags, statuses, priorities, types, sources) shares. */

/** A name shown to people: trimmed, 1 to 100 characters. Unique per installation ignoring case (an index holds it). */
export const nameField = (column: PgColumn) => ({ column, schema: z.string().trim().min(1).max(100), required: true });

/** `#rrggbb`, stored lowercase. */
export const colorField = (column: PgColumn, required = false) => ({
  column,
  schema: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour as #rrggbb')
    .transform((color) => color.toLowerCase()),
  required,
});

/** Where it sorts among its kind in pickers, ascending. */
export const displayOrderField = (column: PgColumn) => ({ column, schema: z.number().int().min(0).max(1_000_000) });

/** An icon's name from the client's icon set. */
export const iconField = (column: PgColumn) => ({
  column,
  schema: z
    .string()
    .trim()
    .max(64)
    .regex(/^[a-z0-9-]*$/, 'must be an icon name: lowercase letters, digits and dashes'),
});

/** The unique-name index of a vocabulary table, answered as 409 naming `name`. */
export const uniqueName = (index: string, singular: string, what: string) => ({
  [index]: { source: `${singular}.name`, detail: `${what} with this name already exists` },
});
