import { z } from 'zod';

/** Value schemas many records' fields share. */

/** Free text that may be absent: trimmed, at most `max` characters, or null. */
export const optionalText = (max: number) => z.string().trim().max(max).nullable();

/** An email address as it is stored: trimmed, at most 254 characters (RFC 5321). */
export const emailAddress = z.string().trim().pipe(z.email().max(254));

/** A web page's address: `http` or `https`, at most 2,048 characters. */
export const webAddress = z.url({ protocol: /^https?$/ }).max(2048);
