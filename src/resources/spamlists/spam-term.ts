import { z } from 'zod';

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const email = z.email();
const ipv4 = z.ipv4();
const ipv6 = z.ipv6();

/**
 * A spam list term: an email address, a domain (a leading `@` is dropped) or an IPv4 or IPv6
 * address, trimmed and lowercased, so one sender is one term whatever its case.
 */
export const spamTerm = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .transform((term) => (term.startsWith('@') ? term.slice(1) : term))
  .refine(
    (term) =>
      email.safeParse(term).success ||
      DOMAIN.test(term) ||
      ipv4.safeParse(term).success ||
      ipv6.safeParse(term).success,
    'must be an email address, a domain or an IP address',
  )
  .meta({
    description:
      'an email address, a domain (`example.com` or `@example.com`) or an IPv4 or IPv6 address; stored lowercase',
  });
