import { z } from 'zod';

/** Value schemas many records' fields share. */

/** Text of at most `max` characters that Postgres can hold: NUL refused here, not by the database after it was accepted. */
export const storableText = (max: number) =>
  z
    .string()
    .max(max)
    .refine((text) => !text.includes('\u0000'), 'must not contain NUL (\\u0000) characters');

/** Free text that may be absent: trimmed, at most `max` characters, or null. */
export const optionalText = (max: number) => z.string().trim().max(max).nullable();

/** An email address as it is stored: trimmed, at most 254 characters (RFC 5321). */
export const emailAddress = z.string().trim().pipe(z.email().max(254));

/** A web page's address: `http` or `https`, at most 2,048 characters. */
export const webAddress = z.url({ protocol: /^https?$/ }).max(2048);

/** An address a record may have none of: null, or `""` as the platform's forms send an empty field, both stored as null. */
export const optionalWebAddress = z
  .union([z.literal('').transform(() => null), webAddress.nullable()])
  .meta({ description: 'an http or https address; null or "" for none' });
