import { and, inArray, sql } from 'drizzle-orm';
import type { Actor } from '../../auth/principal';
import type { Transaction } from '../../db/client';
import { intList } from '../../db/sql-values';
import { tags, ticketTags } from '../../db/schema';
import { refuseFirst } from '../../db/refusal';
import { insertEventsFrom } from '../../events/record-events';
import { manyToMany, shapeOf, tenantScope, type Relation } from '../../engine';
import { ApiError } from '../../http/errors';
import { tagsResource } from '../tags/tags.resource';

type TagEntry = { id: number; delete?: boolean; meta?: { delete?: boolean } | null };

/** `{"id": 9, "meta": {"delete": true}}` (or `"delete": true`): the platform's removal of a tag. */
const removes = (entry: TagEntry) => entry.delete === true || entry.meta?.delete === true;

const links = manyToMany({
  name: 'tags',
  target: shapeOf(tagsResource),
  through: ticketTags,
  parentKey: ticketTags.ticketId,
  targetKey: ticketTags.tagId,
});

/**
 * Every tag a bulk update adds must be a live tag of the caller's installation: a 400 naming the
 * first that is not, whether or not the filter selected any ticket.
 */
async function requireTags(tx: Transaction, who: Actor, entries: TagEntry[], source: string): Promise<void> {
  const added = [...new Set(entries.filter((entry) => !removes(entry)).map((entry) => entry.id))];
  if (added.length === 0) return;
  const found = await tx
    .select({ id: tags.id })
    .from(tags)
    .where(and(tenantScope(tags, who.installationId), inArray(tags.id, added)));
  const known = new Set(found.map((row) => Number(row.id)));
  const index = entries.findIndex((entry) => !removes(entry) && !known.has(entry.id));
  if (index >= 0) throw ApiError.invalid(`${source}[${index}].id`, `no tags ${entries[index]!.id} here`);
}

/**
 * A ticket's tags (`tags`): written by a single update as any link is (`manyToMany`), and by a
 * bulk update over every ticket it changed: `{"id": 9}` added to each that lacks it,
 * `{"id": 9, "meta": {"delete": true}}` removed from each that has it (a ticket without it is
 * left as it is, where a single update's removal of a tag not there is a 400). Each ticket's links
 * are written by the single update's own write, so each gets the same `linked` / `unlinked` events.
 */
export const ticketTagsRelation: Relation = {
  ...links,
  async bulkWrite(tx, who, ids, value, source) {
    if (value === null) return;
    const entries = value as TagEntry[];
    await requireTags(tx, who, entries, source);
    const removed = [...new Set(entries.filter(removes).map((entry) => entry.id))];
    const held = new Set<string>();
    if (removed.length && ids.length) {
      const { rows } = await tx.execute(
        sql`SELECT ticket_id, tag_id FROM ${ticketTags} WHERE ticket_id IN ${intList(ids)} AND tag_id IN ${intList(removed)}`,
      );
      for (const row of rows) held.add(`${row.ticket_id}:${row.tag_id}`);
    }
    for (const id of ids) {
      const own = entries.filter((entry) => !removes(entry) || held.has(`${id}:${entry.id}`));
      if (own.length) await links.write!(tx, who, { type: 'tickets', id }, own, source);
    }
  },
  // the same as statements: the tags checked, then in one statement each changed ticket given the
  // tags it lacks and stripped of those it held (its snapshot: a tag both added and removed stays
  // off a ticket that held it, and goes on one that did not), each link with its ticket's event
  bulkPlan(who, ids, value, source) {
    if (value === null) return [];
    const entries = value as TagEntry[];
    const added = [...new Set(entries.filter((entry) => !removes(entry)).map((entry) => entry.id))];
    const removed = [...new Set(entries.filter(removes).map((entry) => entry.id))];
    const checks = entries.flatMap((entry, index) =>
      removes(entry) ? [] : [{ id: entry.id, source: `${source}[${index}].id`, detail: `no tags ${entry.id} here` }],
    );
    const data = sql`jsonb_build_object('relation', 'tags', 'record', jsonb_build_object('id', r.id, 'type', 'tags'))`;
    const none = sql`SELECT NULL::int AS id, NULL::int AS ticket_id WHERE false`;
    const check = refuseFirst(
      checks,
      (id) =>
        sql`NOT EXISTS (SELECT 1 FROM ${tags} WHERE ${and(tenantScope(tags, who.installationId), sql`${tags.id} = ${id}`)})`,
    );
    return [
      ...(check ? [check] : []),
      sql`WITH added AS (${
        added.length
          ? sql`INSERT INTO ${ticketTags} (installation_id, ticket_id, tag_id, created_by)
              SELECT ${who.installationId}::int, t.id, g.id, ${who.userId}::int FROM ${ids} AS t(id) CROSS JOIN (SELECT unnest(${sql`ARRAY[${sql.join(
                added.map((id) => sql`${id}::int`),
                sql`, `,
              )}]`}) AS id) g
              ON CONFLICT DO NOTHING RETURNING tag_id AS id, ticket_id`
          : none
      }),
        taken AS (${
          removed.length
            ? sql`DELETE FROM ${ticketTags} WHERE ticket_id IN ${ids} AND tag_id IN ${intList(removed)} RETURNING tag_id AS id, ticket_id`
            : none
        }),
        linked AS (${insertEventsFrom(sql`added`, who, 'tickets', 'linked', data, undefined, sql`r.ticket_id`)}),
        unlinked AS (${insertEventsFrom(sql`taken`, who, 'tickets', 'unlinked', data, undefined, sql`r.ticket_id`)})
      SELECT (SELECT count(*) FROM added) AS added, (SELECT count(*) FROM taken) AS removed`,
    ];
  },
};
