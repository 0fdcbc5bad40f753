import { sql } from 'drizzle-orm';
import { triggers } from '../../db/schema';
import { recordJson } from '../engine/record-json';
import type { Relation } from '../engine/relations';
import type { RecordShape } from '../engine/resource';

/** Triggers as business hours include them. Their own endpoints come later. */
export const triggerShape: RecordShape = {
  type: 'triggers',
  table: triggers,
  properties: { name: triggers.name, businesshours_id: triggers.businesshoursId },
};

/**
 * `includes=triggers`: the triggers that use the business hours, in any state but deleted
 * (an inactive trigger still uses them). Read-only: a trigger chooses its business hours.
 */
export const triggersUsingHours: Relation = {
  type: 'triggers',
  cardinality: 'many',
  recordsJson: (parent) => sql`(SELECT coalesce(json_agg(${recordJson(triggerShape)} ORDER BY ${triggers.id}), '[]'::json)
    FROM ${triggers}
    WHERE ${triggers.businesshoursId} = ${parent.id} AND ${triggers.installationId} = ${parent.installationId} AND ${triggers.state} <> 'deleted')`,
};
