import { sql, type SQL } from 'drizzle-orm';

/** Lists and patterns as statement parameters, so that a value never becomes SQL. */

/** `(SELECT ...)` of the integers of `ids`, as one JSON parameter: `x IN ${intList(ids)}` (drizzle would spread an array into many parameters). */
export const intList = (ids: readonly number[]): SQL =>
  sql`(SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::int)`;

/** An ILIKE pattern finding `text` anywhere, its `%`, `_` and `\` taken literally. */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
