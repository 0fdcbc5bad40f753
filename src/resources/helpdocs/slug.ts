import { z } from 'zod';

/** A URL's last part: lowercase letters, digits and single dashes. */
export const slugSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(200)
  .regex(
    /^[a-z0-9]+(?:-[a-z0-9]+)*$/,
    'must be lowercase letters and digits joined by single dashes, such as reset-your-password',
  );

/** A slug made from a title: accents dropped, anything else between words a dash. */
export function slugOf(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 200)
    .replace(/-+$/, '');
  return slug || 'article';
}
