import { finishRecord } from './record-json';
import type { ReadParts } from './read-parts';

/**
 * A record as Postgres built it (`record-json.ts`): its shape is the resource's record schema,
 * which the test harness checks every answer against, not something TypeScript can see.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type WireRecord = Record<string, any>;

export interface RecordsResult {
  records: WireRecord[];
  included: Record<string, WireRecord[]>;
  total: number;
}

export type Row = readonly unknown[];

/** The ids a row names through a `referencedBy` relation, as `id IN (...) ORDER BY id` finds them: ascending, each once. */
function namedIds(values: readonly (number | null)[]): number[] {
  const ids = values.filter((id): id is number => id !== null).sort((a, b) => a - b);
  return ids.filter((id, i) => i === 0 || id !== ids[i - 1]);
}

/**
 * The wire records of the rows (each a `<row>` array), with what they include from `found` (the
 * statement's row, holding the include columns): each record's related records in id order, put
 * into `included` once each (in the order the records name them) and referenced on the record.
 */
export function assemble(
  parts: ReadParts,
  rows: readonly Row[],
  found: Record<string, unknown> | undefined,
): Omit<RecordsResult, 'total'> {
  const { record: own, plans } = parts;
  // Each include's records: by parent id (children), or by id (referenced).
  const byParent = new Map<string, Map<number, WireRecord[]>>();
  // The meta of the link a related record was reached through (a member's access), for its reference.
  const linkMetaOf = new WeakMap<WireRecord, Record<string, unknown>>();
  const byId = new Map<string, Map<number, WireRecord>>();
  if (rows.length) {
    for (const plan of plans) {
      if (plan.kind === 'perRow') continue;
      const all = (found?.[plan.column] ?? []) as Row[];
      if (plan.kind === 'children') {
        const groups = new Map<number, WireRecord[]>();
        const offset = plan.read.linkMeta ? 2 : 1;
        for (const values of all) {
          const parentId = values[0] as number;
          const item = plan.read.record.decode(values, offset);
          if (plan.read.linkMeta) linkMetaOf.set(item, values[1] as Record<string, unknown>);
          const group = groups.get(parentId);
          if (group) group.push(item);
          else groups.set(parentId, [item]);
        }
        byParent.set(plan.name, groups);
      } else {
        const records = new Map<number, WireRecord>();
        for (const values of all) {
          const item = plan.read.record.decode(values, 0);
          records.set(item.id as number, item);
        }
        byId.set(plan.name, records);
      }
    }
  }
  const included: Record<string, Map<number, WireRecord>> = {};
  const records = rows.map((values) => {
    const record = own.decode(values, 0);
    let extra = own.count;
    for (const plan of plans) {
      const { relation } = plan;
      let related: WireRecord[];
      if (plan.kind === 'children') related = byParent.get(plan.name)!.get(record.id as number) ?? [];
      else if (plan.kind === 'referenced') {
        const named = byId.get(plan.name)!;
        related = namedIds(values[extra++] as (number | null)[]).flatMap((id) => named.get(id) ?? []);
      } else related = (values[extra++] as WireRecord[]).map(finishRecord);
      const seen = (included[relation.type] ??= new Map());
      for (const item of related) seen.set(item.id as number, item);
      if (relation.cardinality === 'none') continue;
      const refs = related.map((item) => {
        const meta = linkMetaOf.get(item);
        return meta ? { id: item.id, type: relation.type, meta } : { id: item.id, type: relation.type };
      });
      record[plan.name] = relation.cardinality === 'many' ? refs : (refs[0] ?? null);
    }
    return record;
  });
  return {
    records,
    included: Object.fromEntries(Object.entries(included).map(([type, seen]) => [type, [...seen.values()]])),
  };
}
