import { z } from 'zod';
import { ApiError } from '../../http/errors';
import { canonicalTimeZone } from '../../lib/working-time/time-zone';

/** An IANA time zone id the runtime knows, spelt as the zone list spells it (`europe/dublin` -> `Europe/Dublin`). */
export const timeZoneSchema = z
  .string()
  .trim()
  .refine((name) => canonicalTimeZone(name) !== undefined, 'must be an IANA time zone id such as Europe/Dublin')
  .overwrite((name) => canonicalTimeZone(name) ?? name)
  .describe('an IANA time zone id such as Europe/Dublin; a create needs timezoneId or timezone_name (the same zone)');

/**
 * `timezoneId` and `timezone_name` name one zone (the platform's two names for it): a client
 * may send either or both. Sent alone, one sets the other; sent together they must agree.
 */
export function reconcileTimeZone(record: Record<string, unknown>, creating: boolean): void {
  const id = record.timezoneId as string | undefined;
  const name = record.timezone_name as string | undefined;
  if (id !== undefined && name !== undefined) {
    if (id !== name) throw ApiError.invalid('businesshour.timezone_name', `must name the same time zone as timezoneId (${id}); send either, or both alike`);
  } else if (id !== undefined) {
    record.timezone_name = id;
  } else if (name !== undefined) {
    record.timezoneId = name;
  } else if (creating) {
    throw ApiError.invalid('businesshour.timezoneId', 'must be set (an IANA time zone id such as Europe/Dublin), or timezone_name');
  }
}
