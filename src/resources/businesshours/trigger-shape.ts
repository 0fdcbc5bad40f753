import { sql } from 'drizzle-orm';
import { triggers } from '../../db/schema';
import { recordJson, recordSchema, shapeOf } from '../../engine';
import type { Relation } from '../../engine';
import { triggersResource } from '../triggers/triggers.resource';

/** Triggers as business hours include them: as their own endpoints read them. */
const triggerShape = shapeOf(triggersResource);

/**
 * `includes=triggers`: the triggers that use the business hours, in any state but deleted
 * (an inactive trigger still uses them). Read-only: a trigger chooses its business hours.
 */
export const triggersUsingHours: Relation = {
  type: 'triggers',
  schema: recordSchema(triggerShape),
  cardinality: 'many',
  recordsJson: (
    parent,
  ) => sql`(SELECT coalesce(json_agg(${recordJson(triggerShape)} ORDER BY ${triggers.id}), '[]'::json)
    FROM ${triggers}
    WHERE ${triggers.businesshoursId} = ${parent.id} AND ${triggers.installationId} = ${parent.installationId} AND ${triggers.state} <> 'deleted')`,
};
