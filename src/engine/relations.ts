import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import type { Actor } from '../auth/principal';
import type { Transaction } from '../db/client';
import { changeWithEvents, withEvents } from '../events/record-events';
import { ApiError } from '../http/errors';
import { writableRecord } from '../http/record-body';
import { idValue } from '../http/params';
import {
  createRecords,
  createStatement,
  deleteRecords,
  deleteStatement,
  updateRecords,
  updateStatement,
  type Writer,
} from './changes';
import { refuseFirst, type CheckedId } from '../db/refusal';
import { columnKey, rowValues } from './columns';
import { recordValues } from './record-json';
import { recordSchema } from './record-schema';
import { refSchema } from './wire';
import type { AuditedTable, PageRead, PageRelation, Parent, RecordShape, WritableField } from './types';
import { tenantScope } from './scope';
import { shapeOfFields } from './resource';

/** The record a planned relation write is written on: its id may be SQL (a new record's, recalled from the batch). */
export interface PlannedParent {
  type: string;
  id: SQL;
}

/**
 * A relation's write as statements for a batch (`Database.batch`): the same checks, changes and
 * events as its `write`, in statements that need nothing back from one another. `creating`: the
 * parent is new (nothing is linked to it yet). Undefined: this value needs the interactive `write`.
 */
export type RelationPlan = (
  db: Writer,
  who: Actor,
  parent: PlannedParent,
  value: unknown,
  source: string,
  creating: boolean,
) => SQL[] | undefined;

/** Plans by the `write` they stand for: a relation that replaces its `write` (a customer's contacts) has no plan unless it gives one. */
const plans = new WeakMap<object, RelationPlan>();

export function planOf(relation: { write?: unknown }): RelationPlan | undefined {
  return typeof relation.write === 'function' ? plans.get(relation.write) : undefined;
}

/** A relation's `write` with its plan: the two must do the same. */
export function withPlan<W extends object>(write: W, plan: RelationPlan): W {
  plans.set(write, plan);
  return write;
}

/** The parent's events' data: `{"parent": {"type", "id"}}`, the id as SQL. */
function plannedParentData(parent: PlannedParent): SQL {
  return sql`jsonb_build_object('parent', jsonb_build_object('type', ${parent.type}::text, 'id', ${parent.id}))`;
}

const present = (statements: (SQL | undefined)[]): SQL[] =>
  statements.filter((statement): statement is SQL => statement !== undefined);

/** `requireEntryReferences` as a check in the batch. */
function entryReferenceChecks(
  installationId: number,
  fields: Record<string, WritableField>,
  entries: Entry[],
  source: string,
): (SQL | undefined)[] {
  return Object.entries(fields).flatMap(([name, field]) => {
    if (!field.references) return [];
    const { table, type } = field.references;
    const named = entries.flatMap((entry, index): CheckedId[] =>
      isDeletion(entry) || typeof entry[name] !== 'number'
        ? []
        : [
            {
              id: entry[name] as number,
              source: `${source}[${index}].${name}`,
              detail: `no ${type} ${String(entry[name])} here`,
            },
          ],
    );
    return [
      refuseFirst(
        named,
        (id) =>
          sql`NOT EXISTS (SELECT 1 FROM ${table} WHERE ${and(tenantScope(table, installationId), sql`${table.id} = ${id}`)})`,
      ),
    ];
  });
}

/** `"delete": true`, or the platform's `"meta": {"delete": true}`. */
const deleteFlag = z.boolean().optional();
const entryMeta = z
  .object({ delete: z.boolean().optional() })
  .loose()
  .nullable()
  .optional()
  .meta({ description: '`{"delete": true}` removes the entry, as `delete` does' });

function isDeletion(entry: { delete?: boolean; meta?: { delete?: boolean } | null }): boolean {
  return entry.delete === true || entry.meta?.delete === true;
}

/** An entry's id: the platform's clients send new related records with `id: 0` or `id: null`, which are no id. */
const entryId = z
  .union([z.literal(0), idValue])
  .nullable()
  .optional()
  .transform((id) => (id === 0 || id === null ? undefined : id));

function entrySchema(fields: Record<string, WritableField>) {
  const shape: Record<string, z.ZodType> = { id: entryId, delete: deleteFlag, meta: entryMeta };
  for (const [name, field] of Object.entries(fields)) shape[name] = field.schema.optional();
  return writableRecord(shape);
}

/**
 * The page form (`PageRead`, `types.ts`) every relation made here has but `referencedBy`'s:
 * the live `target` records reached through `from` whose `parentKey` is one of the page's.
 */
function childrenOf(target: RecordShape, from: SQL, parentKey: PgColumn, linkMeta?: SQL): PageRead {
  const record = recordValues(target);
  if (record.count + 2 > 100) throw new Error(`${target.type}: too many properties for json_build_array`);
  const t = target.table;
  const meta = linkMeta ? sql`${linkMeta}, ` : sql``;
  return {
    kind: 'children',
    record,
    linkMeta: linkMeta !== undefined,
    rows: (ids) =>
      sql`(SELECT json_agg(json_build_array(${parentKey}, ${meta}${record.values}) ORDER BY ${t.id}) FROM ${from} WHERE ${parentKey} = ANY(${ids}) AND ${t.state} = 'active')`,
  };
}

function missingFields(fields: Record<string, WritableField>, entry: Record<string, unknown>): string[] {
  return Object.entries(fields)
    .filter(([name, field]) => field.required && entry[name] === undefined)
    .map(([name]) => name);
}

/** The properties of a related record that an entry may write, as they read: watched for `updated` events. */
function writableProperties(shape: RecordShape, fields: Record<string, WritableField>) {
  return Object.fromEntries(
    Object.keys(fields)
      .filter((name) => name in shape.properties)
      .map((name) => [name, shape.properties[name]!]),
  );
}

/**
 * Each property of an entry that names another record (a policy's scope entry's `customer`) must
 * name a live one of the caller's installation, as a record's own do (`requireReferences`).
 */
async function requireEntryReferences(
  tx: Transaction,
  installationId: number,
  fields: Record<string, WritableField>,
  entries: Entry[],
  source: string,
): Promise<void> {
  for (const [name, field] of Object.entries(fields)) {
    if (!field.references) continue;
    const { table, type } = field.references;
    const named = entries
      .map((entry) => (isDeletion(entry) ? undefined : entry[name]))
      .filter((id): id is number => typeof id === 'number');
    if (named.length === 0) continue;
    const found = await tx
      .select({ id: table.id })
      .from(table as PgTable)
      .where(and(tenantScope(table, installationId), inArray(table.id, [...new Set(named)])));
    const known = new Set(found.map((row) => Number(row.id)));
    const index = entries.findIndex(
      (entry) => !isDeletion(entry) && typeof entry[name] === 'number' && !known.has(entry[name]),
    );
    if (index >= 0)
      throw ApiError.invalid(`${source}[${index}].${name}`, `no ${type} ${String(entries[index]![name])} here`);
  }
}

/** Checks that every id is a live child of the parent; answers 400 naming the first that is not. */
async function requireChildren(
  tx: Transaction,
  table: AuditedTable,
  scope: SQL,
  entries: { id?: number }[],
  source: string,
  type: string,
): Promise<void> {
  const ids = entries.flatMap((e) => (e.id === undefined ? [] : [e.id]));
  if (ids.length === 0) return;
  const found = await tx
    .select({ id: table.id })
    .from(table as PgTable)
    .where(and(scope, inArray(table.id, ids)));
  const known = new Set(found.map((r) => r.id as number));
  const index = entries.findIndex((e) => e.id !== undefined && !known.has(e.id));
  if (index >= 0) throw ApiError.invalid(`${source}[${index}].id`, `no ${type} ${entries[index]!.id} here`);
}

type Entry = Record<string, unknown> & { id?: number; delete?: boolean; meta?: { delete?: boolean } | null };

/**
 * Checks that the caller may link each record of `fresh` (the links not there yet) under the
 * target's own rule (`RecordShape.linkable`); answers 400 naming the first entry that may not.
 */
async function requireLinkable(
  tx: Transaction,
  who: Actor,
  target: RecordShape,
  entries: LinkEntry[],
  fresh: number[],
  source: string,
): Promise<void> {
  if (!target.linkable || fresh.length === 0) return;
  const table = target.table;
  const found = await tx
    .select({ id: table.id })
    .from(table as PgTable)
    .where(and(target.linkable.where(who), inArray(table.id, fresh)));
  const allowed = new Set(found.map((row) => Number(row.id)));
  const index = entries.findIndex((e) => !isDeletion(e) && fresh.includes(e.id) && !allowed.has(e.id));
  if (index >= 0) throw ApiError.invalid(`${source}[${index}].id`, target.linkable.refusal(entries[index]!.id));
}

/**
 * Records owned by the parent (a company's domains, phones, ...). An entry without `id` is
 * created; with `id` and `delete: true` it is removed; with `id` and properties those are
 * changed; a bare reference leaves it as it is. Entries not sent stay; `null` leaves them all.
 * Each created, changed or removed record gets its own event, naming the parent.
 */
export function hasMany(options: {
  shape: RecordShape;
  parentKey: PgColumn;
  fields: Record<string, WritableField>;
}): PageRelation {
  const { shape, parentKey, fields } = options;
  const table = shape.table;
  const liveChildrenOf = (parentId: number) => and(eq(parentKey, parentId), eq(table.state, 'active'))!;
  const watched = writableProperties(shape, fields);
  const target = { table, type: shape.eventType ?? shape.type };
  return {
    type: shape.type,
    schema: recordSchema(shape),
    cardinality: 'many',
    page: childrenOf(shape, sql`${table}`, parentKey),
    bodySchema: z.array(entrySchema(fields)).max(100).nullable(),
    write: withPlan(
      async function write(tx: Transaction, who: Actor, parent: Parent, value: unknown, source: string) {
        if (value === null) return;
        const entries = value as Entry[];
        await requireChildren(tx, table, liveChildrenOf(parent.id), entries, source, shape.type);
        await requireEntryReferences(tx, who.installationId, fields, entries, source);
        const event = { parent };
        await createRecords(tx, who, target, insertsOf(entries, source, parent.id), event);
        const removed = entries.flatMap((e) => (e.id !== undefined && isDeletion(e) ? [e.id] : []));
        if (removed.length)
          await deleteRecords(
            tx,
            who,
            { ...target, where: and(liveChildrenOf(parent.id), inArray(table.id, removed))! },
            event,
          );
        for (const entry of entries) {
          const changes = rowValues(table, fields, entry);
          if (entry.id === undefined || isDeletion(entry) || Object.keys(changes).length === 0) continue;
          await updateRecords(
            tx,
            who,
            { ...target, where: and(liveChildrenOf(parent.id), eq(table.id, entry.id))! },
            changes,
            watched,
          );
        }
      },
      (db, who, parent, value, source, creating) => {
        if (value === null) return [];
        const entries = value as Entry[];
        const named = entries.flatMap((e, index): CheckedId[] =>
          e.id === undefined
            ? []
            : [{ id: e.id, source: `${source}[${index}].id`, detail: `no ${shape.type} ${e.id} here` }],
        );
        // a new record has no children yet
        if (creating && named[0]) throw ApiError.invalid(named[0].source, named[0].detail);
        const inserts = insertsOf(entries, source, parent.id);
        const event = plannedParentData(parent);
        const removed = entries.flatMap((e) => (e.id !== undefined && isDeletion(e) ? [e.id] : []));
        const live = and(eq(parentKey, parent.id), eq(table.state, 'active'))!;
        return present([
          refuseFirst(named, (id) => sql`NOT EXISTS (SELECT 1 FROM ${table} WHERE ${live} AND ${table.id} = ${id})`),
          ...entryReferenceChecks(who.installationId, fields, entries, source),
          inserts.length ? createStatement(db, who, target, inserts, event) : undefined,
          removed.length
            ? deleteStatement(db, who, { ...target, where: and(live, inArray(table.id, removed))! }, event)
            : undefined,
          ...entries.map((entry) => {
            const changes = rowValues(table, fields, entry);
            if (entry.id === undefined || isDeletion(entry) || Object.keys(changes).length === 0) return undefined;
            return updateStatement(db, who, { ...target, where: and(live, eq(table.id, entry.id))! }, changes, watched);
          }),
        ]);
      },
    ),
  };

  /** The rows of the entries that make new records: a 400 for a deletion without an id, or a required field missing. */
  function insertsOf(entries: Entry[], source: string, parentId: number | SQL): Record<string, unknown>[] {
    const parentColumn = columnKey(table, parentKey);
    return entries.flatMap((entry, index) => {
      if (entry.id !== undefined) return [];
      if (isDeletion(entry))
        throw ApiError.invalid(`${source}[${index}].delete`, 'only an entry with an id can be deleted');
      const missing = missingFields(fields, entry);
      if (missing.length) throw ApiError.invalid(`${source}[${index}].${missing[0]}`, 'must be set');
      return [{ ...rowValues(table, fields, entry), [parentColumn]: parentId }];
    });
  }
}

/**
 * `hasMany` over a table whose records are exactly their writable fields (a policy's scope
 * entries, an endpoint's events): the record shape is made from the fields.
 */
export function hasManyFields(options: {
  type: string;
  component: string;
  table: AuditedTable;
  parentKey: PgColumn;
  fields: Record<string, WritableField>;
}): PageRelation {
  const { type, component, table, parentKey, fields } = options;
  return hasMany({ shape: shapeOfFields({ type, component, table, fields }), parentKey, fields });
}

/** Records owned by the parent that are written elsewhere (a conversation's messages): read-only. */
export function ownedRecords(options: { shape: RecordShape; parentKey: PgColumn }): PageRelation {
  const { shape, parentKey } = options;
  return {
    type: shape.type,
    schema: recordSchema(shape),
    cardinality: 'many',
    page: childrenOf(shape, sql`${shape.table}`, parentKey),
  };
}

/**
 * At most one live record owned by the parent (a company's time-log settings). The property
 * takes the record's properties, which create it or change it, or null, which removes it.
 */
export function hasOne(options: {
  shape: RecordShape;
  parentKey: PgColumn;
  fields: Record<string, WritableField>;
}): PageRelation {
  const { shape, parentKey, fields } = options;
  const table = shape.table;
  const schema: Record<string, z.ZodType> = { id: idValue.optional() };
  for (const [name, field] of Object.entries(fields)) schema[name] = field.schema.optional();
  const liveChildOf = (parentId: number) => and(eq(parentKey, parentId), eq(table.state, 'active'))!;
  const watched = writableProperties(shape, fields);
  return {
    type: shape.type,
    schema: recordSchema(shape),
    cardinality: 'one',
    page: childrenOf(shape, sql`${table}`, parentKey),
    bodySchema: writableRecord(schema).nullable(),
    write: withPlan(
      async function write(tx: Transaction, who: Actor, parent: Parent, value: unknown, source: string) {
        const event = { parent };
        if (value === null) {
          await deleteRecords(tx, who, { ...shape, where: liveChildOf(parent.id) }, event);
          return;
        }
        const changes = rowValues(table, fields, value as Record<string, unknown>);
        const [live] = await tx
          .select({ id: table.id })
          .from(table as PgTable)
          .where(liveChildOf(parent.id))
          .for('update');
        if (live) {
          await updateRecords(tx, who, { ...shape, where: eq(table.id, live.id as number) }, changes, watched);
          return;
        }
        const missing = missingFields(fields, value as Record<string, unknown>);
        if (missing.length) throw ApiError.invalid(`${source}.${missing[0]}`, 'must be set');
        await createRecords(tx, who, shape, [{ ...changes, [columnKey(table, parentKey)]: parent.id }], event);
      },
      (db, who, parent, value, source, creating) => {
        const event = plannedParentData(parent);
        const live = and(eq(parentKey, parent.id), eq(table.state, 'active'))!;
        if (value === null) return creating ? [] : [deleteStatement(db, who, { ...shape, where: live }, event)];
        // changing the record there is, or making one, is decided by what is there: the interactive write
        if (!creating) return undefined;
        const missing = missingFields(fields, value as Record<string, unknown>);
        if (missing.length) throw ApiError.invalid(`${source}.${missing[0]}`, 'must be set');
        return [
          createStatement(
            db,
            who,
            shape,
            [
              {
                ...rowValues(table, fields, value as Record<string, unknown>),
                [columnKey(table, parentKey)]: parent.id,
              },
            ],
            event,
          ),
        ];
      },
    ),
  };
}

/** A property of a link itself (a member's `access`), written and read as the reference's `meta.<name>`. */
export interface LinkField {
  column: PgColumn;
  schema: z.ZodType;
  /** what a new link without it gets */
  default: string | number | boolean;
  /** a jsonb column: bound as JSON text (an array would otherwise become a list of parameters) */
  json?: boolean;
}

/** A link field's value as a statement parameter. */
const linkValue = (link: LinkField, value: unknown) =>
  link.json ? sql`${JSON.stringify(value)}::jsonb` : sql`${value}`;

/** Whether a link field sent again is what the link holds (JSON values compare by content). */
const sameLinkValue = (sent: unknown, held: unknown) => sent === held || JSON.stringify(sent) === JSON.stringify(held);

type LinkEntry = { id: number; delete?: boolean; meta?: ({ delete?: boolean } & Record<string, unknown>) | null };

/**
 * Links between the parent and records that live on their own (a company's customers).
 * `{"id": 5}` links record 5, `{"id": 5, "delete": true}` unlinks it (a 400 when it is not
 * linked); links not sent stay. Each new link and each removed one is an event of the parent
 * (`linked`, `unlinked`) naming the relation and the record. `linkFields` are properties of the
 * link (an inbox member's `access`): written as `meta.<name>` of an entry, read in the
 * reference's `meta`; a changed one is a `linked` event again, with the new `meta`.
 */
export function manyToMany(options: {
  name: string;
  target: RecordShape;
  through: PgTable & { installationId: PgColumn };
  parentKey: PgColumn;
  targetKey: PgColumn;
  linkFields?: Record<string, LinkField>;
}): PageRelation {
  const { name, target, through, parentKey, targetKey } = options;
  const linkFields = Object.entries(options.linkFields ?? {});
  const metaShape: Record<string, z.ZodType> = { delete: z.boolean().optional() };
  for (const [field, link] of linkFields) metaShape[field] = link.schema.optional();
  const entryMetaSchema = linkFields.length
    ? z
        .looseObject(metaShape)
        .nullable()
        .optional()
        .meta({
          description: `\`delete: true\` removes the link; ${linkFields.map(([field]) => `\`${field}\``).join(', ')} set the link's own properties`,
        })
    : entryMeta;
  const entry = writableRecord(
    { id: idValue, delete: deleteFlag, meta: entryMetaSchema },
    [],
    `must be a reference to ${target.type}, {"id": N}`,
  );
  const metaJson = linkFields.length
    ? sql`json_build_object(${sql.join(
        linkFields.map(([field, link]) => sql`${field}::text, ${link.column}`),
        sql`, `,
      )})`
    : undefined;
  const returning = sql.join(
    [
      sql`${sql.identifier(targetKey.name)} AS id`,
      ...linkFields.map(([field, link]) => sql`${sql.identifier(link.column.name)} AS ${sql.identifier(field)}`),
    ],
    sql`, `,
  );
  const linkEvent = (parent: Parent | PlannedParent) => {
    const meta = linkFields.length
      ? sql`, 'meta', jsonb_build_object(${sql.join(
          linkFields.map(([field]) => sql`${field}::text, r.${sql.identifier(field)}`),
          sql`, `,
        )})`
      : sql``;
    return [
      sql`${parent.id}::int`,
      sql`jsonb_build_object('relation', ${name}::text, 'record', jsonb_build_object('id', r.id, 'type', ${target.type}::text)${meta})`,
    ] as const;
  };
  const referenceSchema = linkFields.length
    ? refSchema(target.type).extend({
        meta: z.object(Object.fromEntries(linkFields.map(([field, link]) => [field, link.schema]))),
      })
    : undefined;
  return {
    type: target.type,
    schema: recordSchema(target),
    cardinality: 'many',
    page: childrenOf(
      target,
      sql`${through} JOIN ${target.table} ON ${target.table.id} = ${targetKey}`,
      parentKey,
      metaJson,
    ),
    bodySchema: z.array(entry).max(500).nullable(),
    referenceSchema,
    write: withPlan(
      async function write(tx: Transaction, who: Actor, parent: Parent, value: unknown, source: string) {
        if (value === null) return;
        const entries = value as LinkEntry[];
        const scope = tenantScope(target.table, who.installationId)!;
        await requireChildren(
          tx,
          target.table,
          scope,
          entries.map((e) => (isDeletion(e) ? {} : e)),
          source,
          target.type,
        );
        const unlinking = entries.flatMap((e) => (isDeletion(e) ? [e.id] : []));
        // The links there already: those to remove must be, with link fields a link sent again may
        // change, and a target with a rule of its own is checked for new links only (a record sent
        // back as it was linked is not refused). Otherwise plain new links need no look-up: the
        // insert skips what is there.
        const linked = new Map<number, Record<string, unknown>>();
        const named = linkFields.length || target.linkable ? [...new Set(entries.map((e) => e.id))] : unlinking;
        if (named.length) {
          const rows = await tx.execute(
            sql`SELECT ${returning} FROM ${through} WHERE ${parentKey} = ${parent.id} AND ${inArray(targetKey, named)}`,
          );
          for (const row of rows.rows) linked.set(Number(row.id), row);
        }
        const index = entries.findIndex((e) => isDeletion(e) && !linked.has(e.id));
        if (index >= 0)
          throw ApiError.invalid(
            `${source}[${index}].id`,
            `${target.type} ${entries[index]!.id} is not linked, so it cannot be removed`,
          );
        const [recordId, data] = linkEvent(parent);
        // The last entry naming a record wins.
        const wanted = new Map(entries.filter((e) => !isDeletion(e)).map((e) => [e.id, e.meta ?? {}] as const));
        const fresh = [...wanted].filter(([id]) => !linked.has(id));
        await requireLinkable(
          tx,
          who,
          target,
          entries,
          fresh.map(([id]) => id),
          source,
        );
        if (fresh.length) {
          const columns = [
            sql`installation_id`,
            sql.identifier(parentKey.name),
            sql.identifier(targetKey.name),
            sql`created_by`,
            ...linkFields.map(([, link]) => sql.identifier(link.column.name)),
          ];
          const rows = fresh.map(
            ([id, meta]) =>
              sql`(${sql.join([sql`${who.installationId}::int`, sql`${parent.id}::int`, sql`${id}::int`, sql`${who.userId}::int`, ...linkFields.map(([field, link]) => linkValue(link, meta[field] ?? link.default))], sql`, `)})`,
          );
          const statement = sql`INSERT INTO ${through} (${sql.join(columns, sql`, `)}) VALUES ${sql.join(rows, sql`, `)} ON CONFLICT DO NOTHING RETURNING ${returning}`;
          await changeWithEvents(tx, statement, who, parent.type, 'linked', data, recordId);
        }
        for (const [id, meta] of wanted) {
          const current = linked.get(id);
          const changes = linkFields.filter(
            ([field]) => current && meta[field] !== undefined && !sameLinkValue(meta[field], current[field]),
          );
          if (changes.length === 0) continue;
          const set = sql.join(
            changes.map(([field, link]) => sql`${sql.identifier(link.column.name)} = ${linkValue(link, meta[field])}`),
            sql`, `,
          );
          const statement = sql`UPDATE ${through} SET ${set} WHERE ${parentKey} = ${parent.id} AND ${targetKey} = ${id} RETURNING ${returning}`;
          await changeWithEvents(tx, statement, who, parent.type, 'linked', data, recordId);
        }
        if (unlinking.length) {
          const statement = sql`DELETE FROM ${through} WHERE ${parentKey} = ${parent.id} AND ${inArray(targetKey, unlinking)} RETURNING ${returning}`;
          await changeWithEvents(tx, statement, who, parent.type, 'unlinked', data, recordId);
        }
      },
      (_db, who, parent, value, source, creating) => {
        if (value === null) return [];
        const entries = value as LinkEntry[];
        const scope = tenantScope(target.table, who.installationId)!;
        const linkOf = (id: SQL) =>
          sql`EXISTS (SELECT 1 FROM ${through} WHERE ${parentKey} = ${parent.id} AND ${targetKey} = ${id})`;
        const each = (keep: (entry: LinkEntry) => boolean, detail: (id: number) => string) =>
          entries.flatMap((entry, index): CheckedId[] =>
            keep(entry) ? [{ id: entry.id, source: `${source}[${index}].id`, detail: detail(entry.id) }] : [],
          );
        const unlinks = each(isDeletion, (id) => `${target.type} ${id} is not linked, so it cannot be removed`);
        const links = each(
          (entry) => !isDeletion(entry),
          (id) => `no ${target.type} ${id} here`,
        );
        // a new record has no links yet
        if (creating && unlinks[0]) throw ApiError.invalid(unlinks[0].source, unlinks[0].detail);
        const linkable = target.linkable;
        const [recordId, data] = linkEvent(parent);
        const wanted = new Map(entries.filter((e) => !isDeletion(e)).map((e) => [e.id, e.meta ?? {}] as const));
        const unlinking = [...new Set(unlinks.map((entry) => entry.id))];
        const statements: (SQL | undefined)[] = [
          refuseFirst(
            links,
            (id) => sql`NOT EXISTS (SELECT 1 FROM ${target.table} WHERE ${scope} AND ${target.table.id} = ${id})`,
          ),
          refuseFirst(unlinks, (id) => sql`NOT ${linkOf(id)}`),
          linkable
            ? refuseFirst(
                links.map((entry) => ({ ...entry, detail: linkable.refusal(entry.id) })),
                (id) =>
                  sql`NOT ${linkOf(id)} AND NOT EXISTS (SELECT 1 FROM ${target.table} WHERE ${linkable.where(who)} AND ${target.table.id} = ${id})`,
              )
            : undefined,
        ];
        if (wanted.size) {
          // links there already are skipped by the insert, and keep their fields unless sent (below)
          const columns = [
            sql`installation_id`,
            sql.identifier(parentKey.name),
            sql.identifier(targetKey.name),
            sql`created_by`,
            ...linkFields.map(([, link]) => sql.identifier(link.column.name)),
          ];
          const rows = [...wanted].map(
            ([id, meta]) =>
              sql`(${sql.join([sql`${who.installationId}::int`, sql`${parent.id}::int`, sql`${id}::int`, sql`${who.userId}::int`, ...linkFields.map(([field, link]) => linkValue(link, meta[field] ?? link.default))], sql`, `)})`,
          );
          statements.push(
            withEvents(
              sql`INSERT INTO ${through} (${sql.join(columns, sql`, `)}) VALUES ${sql.join(rows, sql`, `)} ON CONFLICT DO NOTHING RETURNING ${returning}`,
              who,
              parent.type,
              'linked',
              data,
              recordId,
            ),
          );
        }
        for (const [id, meta] of creating ? [] : wanted) {
          const changes = linkFields.filter(([field]) => meta[field] !== undefined);
          if (changes.length === 0) continue;
          const set = sql.join(
            changes.map(([field, link]) => sql`${sql.identifier(link.column.name)} = ${linkValue(link, meta[field])}`),
            sql`, `,
          );
          const differs = sql.join(
            changes.map(([field, link]) => sql`${link.column} IS DISTINCT FROM ${linkValue(link, meta[field])}`),
            sql` OR `,
          );
          statements.push(
            withEvents(
              sql`UPDATE ${through} SET ${set} WHERE ${parentKey} = ${parent.id} AND ${targetKey} = ${id} AND (${differs}) RETURNING ${returning}`,
              who,
              parent.type,
              'linked',
              data,
              recordId,
            ),
          );
        }
        if (unlinking.length) {
          statements.push(
            withEvents(
              sql`DELETE FROM ${through} WHERE ${parentKey} = ${parent.id} AND ${inArray(targetKey, unlinking)} RETURNING ${returning}`,
              who,
              parent.type,
              'unlinked',
              data,
              recordId,
            ),
          );
        }
        return present(statements);
      },
    ),
  };
}

/**
 * The relation as the record's body cannot write it: read and included only, its links written by
 * the record's own operations (a thread entry's files and mentions, written with the entry).
 */
export function readOnlyRelation(relation: PageRelation): PageRelation {
  const { write: _write, bodySchema: _bodySchema, ...read } = relation;
  return read;
}

/**
 * The records that properties of the parent refer to (`includes=users`: the users named by
 * `createdBy`, `updatedBy`, `deletedBy`, `user`...). Read-only: the references are the parent's own.
 */
export function referencedBy(options: {
  target: RecordShape;
  columns: (parent: AuditedTable) => (PgColumn | SQL | undefined)[];
}): PageRelation {
  const { target } = options;
  const t = target.table;
  const columns = (parent: AuditedTable) =>
    sql.join(
      options
        .columns(parent)
        .filter((c): c is PgColumn | SQL => c !== undefined)
        .map((c) => sql`${c}`),
      sql`, `,
    );
  const record = recordValues(target);
  if (record.count > 100) throw new Error(`${target.type}: too many properties for json_build_array`);
  return {
    type: target.type,
    schema: recordSchema(target),
    cardinality: 'none',
    page: {
      kind: 'referenced',
      record,
      refs: (parent) => sql`json_build_array(${columns(parent)})`,
      // The ids every parent of the page names, then each record once (by its primary key).
      rows: (parent, ids) =>
        sql`(SELECT json_agg(json_build_array(${record.values}) ORDER BY ${t.id}) FROM ${t}
          WHERE ${t.id} = ANY(ARRAY(SELECT unnest(ARRAY[${columns(parent)}]) FROM ${parent} WHERE ${parent.id} = ANY(${ids}))))`,
    },
  };
}
