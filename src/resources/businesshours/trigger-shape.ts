import { sql } from 'drizzle-orm';
import { triggers } from '../../db/schema';
import { recordJson, recordSchema } from '../../engine';
import type { Relation } from '../../engine';
import type { RecordShape } from '../../engine';

/** Triggers as business hours include them. Their own endpoints come later. */
export const triggerShape: RecordShape = {
  type: 'triggers',
  component: 'Trigger',
  table: triggers,
  properties: { name: triggers.name, businesshours_id: triggers.businesshoursId },
};

/**
 * `includes=triggers`: the triggers that use the business hours, in any state but deleted
 * (an inactive trigger still uses them). Read-only: a trigger chooses its business hours.
 */
export const triggersUsingHours: Relation = {
  type: 'triggers',
  schema: recordSchema(triggerShape),
  cardinality: 'many',
  recordsJson: (parent) => sql`(SELECT coalesce(json_agg(${recordJson(triggerShape)} ORDER BY ${triggers.id}), '[]'::json)
    FROM ${triggers}
    WHERE ${triggers.businesshoursId} = ${parent.id} AND ${triggers.installationId} = ${parent.installationId} AND ${triggers.state} <> 'deleted')`,
};
