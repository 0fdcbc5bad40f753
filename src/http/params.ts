import { z } from 'zod';

/** The largest id an `integer` column holds. */
export const MAX_ID = 2_147_483_647;

/** Whether a value taken from a queue message or a stored body can be a row's id. */
export const isRowId = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) > 0 && (value as number) <= MAX_ID;

/** An id's digits as the platform's clients may send them (`"12"`): canonical, without sign, space or leading zero. */
const ID_DIGITS = /^[1-9]\d{0,9}$/;

/**
 * An id sent in a body: what an `integer` id column can hold, as a number or as its digits
 * (`"12"`, as the platform's samples send some ids); any other string is a 400.
 */
export const idValue = z.union(
  [z.number().int().positive().max(MAX_ID), z.string().regex(ID_DIGITS).transform(Number).pipe(z.number().max(MAX_ID))],
  { error: 'must be an id: a positive integer, or its digits as a string ("12")' },
);

/** Path parameters that match digits only, so that `update.json` can never be read as an id. */
const integerParams = new WeakSet<z.ZodType>();

/** Whether the router should match this parameter as digits only. */
export function isIntegerParam(schema: z.ZodType): boolean {
  return integerParams.has(schema);
}

/**
 * An integer path parameter (`{id}`, `{jobId}`): the router hands it over as digits, with the
 * path's extension when it ends the path (`12.json`). One record has one address: a leading
 * zero, 0, or a value past an `integer` column is a 400 naming the parameter.
 */
export function integerParam(description: string, max = MAX_ID): z.ZodType<number, string> {
  // another product's ids (a project-management task's) may pass an `integer` column's
  const pattern = max === MAX_ID ? ID_DIGITS : /^[1-9]\d{0,15}$/;
  const schema = z
    .string()
    .transform((raw, ctx) => {
      const digits = raw.replace(/\.(json|csv)$/, '');
      if (!pattern.test(digits) || Number(digits) > max) {
        ctx.addIssue({
          code: 'custom',
          message: `must be a positive integer without leading zeros, at most ${max}; got "${digits}"`,
        });
        return z.NEVER;
      }
      return Number(digits);
    })
    .meta({ type: 'integer', minimum: 1, maximum: max, description });
  integerParams.add(schema);
  return schema;
}

/** A text path parameter (a token); its extension, when it ends the path, is dropped. */
export function textParam(description: string): z.ZodType<string, string> {
  return z
    .string()
    .transform((raw) => raw.replace(/\.(json|csv)$/, ''))
    .meta({ type: 'string', description });
}

/** `{id}`: the record's id. */
export const idParams = z.object({ id: integerParam("the record's id") });
