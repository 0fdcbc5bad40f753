import { sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Transaction } from '../../db/client';
import { recalled, refuseWhen, remember } from '../../db/refusal';
import { ApiError } from '../../http/errors';
import { MAX_ID } from '../../http/params';
import { canonicalTimeZone } from '../../lib/working-time/time-zone';

/** An IANA time zone id the runtime knows, spelt as the zone list spells it (`europe/dublin` -> `Europe/Dublin`). */
export const timeZoneNameSchema = z
  .string()
  .trim()
  .refine((name) => canonicalTimeZone(name) !== undefined, 'must be an IANA time zone id such as Europe/Dublin')
  .overwrite((name) => canonicalTimeZone(name) ?? name)
  .meta({ description: 'the IANA name of the zone, such as Europe/Dublin; a create needs it or timezoneId' });

/** A zone's id in the catalogue (`GET /v2/timezones.json`). */
export const timeZoneIdSchema = z
  .number()
  .int()
  .positive()
  .max(MAX_ID)
  .meta({ description: "the zone's id in /v2/timezones.json; a create needs it or timezone_name" });

/**
 * The catalogue's row of a zone name, matched ignoring case (`utc` is `UTC`, id 1), adding the
 * zone when it is valid but not listed yet (ids never change). Two writes adding one zone at once
 * both get its one row: the later insert waits for the earlier and takes it. Answers `select` over the row (`zone`).
 */
const zoneOfNameQuery = (name: string, select: SQL = sql`SELECT id, name FROM zone`) => sql`
    WITH listed AS (SELECT id, name FROM timezones WHERE lower(name) = lower(${name})),
    added AS (
      INSERT INTO timezones (name) SELECT ${name} WHERE NOT EXISTS (SELECT 1 FROM listed)
      ON CONFLICT ((lower(name))) DO UPDATE SET updated_at = timezones.updated_at
      RETURNING id, name),
    zone AS (SELECT id, name FROM listed UNION ALL SELECT id, name FROM added)
    ${select}`;

async function zoneOfName(tx: Transaction, name: string): Promise<{ id: number; name: string }> {
  const { rows } = await tx.execute(zoneOfNameQuery(name));
  return { id: Number(rows[0]!.id), name: rows[0]!.name as string };
}

const NEITHER =
  'must be set (an id of /v2/timezones.json), or timezone_name (an IANA time zone id such as Europe/Dublin)';
const unknownZone = (id: number) => `no time zone ${id}; the ids are listed at /v2/timezones.json`;
/** `%s` stands for the zone `id` is */
const otherZone = (id: number) =>
  `must name the same time zone as timezoneId (${id} is %s); send either, or both alike`;
const liveZone = (id: number) => sql`id = ${id} AND state = 'active'`;

/**
 * `timezoneId` (the catalogue's integer id, as the platform's client sends it) and
 * `timezone_name` (the IANA name) name one zone: a client may send either or both. Sent alone,
 * one sets the other; sent together they must agree.
 */
export async function reconcileTimeZone(
  tx: Transaction,
  record: Record<string, unknown>,
  creating: boolean,
): Promise<void> {
  const id = record.timezoneId as number | undefined;
  const name = record.timezone_name as string | undefined;
  if (id === undefined && name === undefined) {
    if (creating) throw ApiError.invalid('businesshour.timezoneId', NEITHER);
    return;
  }
  let listed: string | undefined;
  if (id !== undefined) {
    const { rows } = await tx.execute(sql`SELECT name FROM timezones WHERE ${liveZone(id)}`);
    listed = rows[0]?.name as string | undefined;
    if (listed === undefined) throw ApiError.invalid('businesshour.timezoneId', unknownZone(id));
  }
  if (name !== undefined && listed !== undefined && name.toLowerCase() !== listed.toLowerCase()) {
    throw ApiError.invalid('businesshour.timezone_name', otherZone(id!).replace('%s', listed));
  }
  if (listed !== undefined) {
    record.timezone_name = listed;
    record.timezoneId = id;
    return;
  }
  const zone = await zoneOfName(tx, name!);
  record.timezone_name = zone.name;
  record.timezoneId = zone.id;
}

/** The name the zone's id goes by in a batch. */
const ZONE = 'timezone_id';

/**
 * `reconcileTimeZone` for a write sent as one batch: its checks and the look-up (or addition) of
 * a zone by name as statements, the record's two zone properties set to what they find.
 */
export function timeZoneStatements(record: Record<string, unknown>, creating: boolean): SQL[] {
  const id = record.timezoneId as number | undefined;
  const name = record.timezone_name as string | undefined;
  if (id === undefined && name === undefined) {
    if (creating) throw ApiError.invalid('businesshour.timezoneId', NEITHER);
    return [];
  }
  if (id !== undefined) {
    record.timezone_name = sql`(SELECT name FROM timezones WHERE id = ${id})`;
    return [
      refuseWhen(
        sql`NOT EXISTS (SELECT 1 FROM timezones WHERE ${liveZone(id)})`,
        400,
        'businesshour.timezoneId',
        unknownZone(id),
      ),
      ...(name === undefined
        ? []
        : [
            sql`SELECT desk_refuse(400, 'businesshour.timezone_name', format(${otherZone(id)}::text, name)) FROM timezones WHERE ${liveZone(id)} AND lower(name) <> lower(${name})`,
          ]),
    ];
  }
  record.timezoneId = recalled(ZONE);
  record.timezone_name = sql`(SELECT name FROM timezones WHERE id = ${recalled(ZONE)})`;
  return [zoneOfNameQuery(name!, sql`SELECT ${remember(ZONE, sql`zone.id`)} FROM zone`)];
}
