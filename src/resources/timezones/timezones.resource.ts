import { z } from 'zod';
import { ADMINS, EVERYONE } from '../../auth/access';
import { timeZones } from '../../db/schema';
import { defineResource } from '../../engine';

/**
 * The time zones, by the integer id business hours take as `timezoneId` (the platform's clients
 * decode it as an integer). A catalogue every installation shares, read-only: a zone named by its
 * IANA name in a business hours' `timezone_name` joins it with a new id when it is not listed yet.
 */
export const timeZonesResource = defineResource({
  type: 'timezones',
  singular: 'timezone',
  title: { one: 'TimeZone', many: 'TimeZones' },
  table: timeZones,
  tenancy: 'global',
  fields: { name: { column: timeZones.name, schema: z.string(), readOnly: true } },
  filter: ['id', 'name'],
  relations: {},
  access: { read: EVERYONE, write: ADMINS },
  operations: ['list', 'get'],
});
