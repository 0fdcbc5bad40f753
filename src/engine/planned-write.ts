import { and, eq, ne, sql, type SQL } from 'drizzle-orm';
import type { Env } from '../app-env';
import type { Actor } from '../auth/principal';
import type { Database } from '../db/client';
import { recalled, recalledIds, refuseWhen, remember, RolledBack, rollBackWith } from '../db/refusal';
import { createStatement, updateStatement, type Writer } from './changes';
import { columnKey, rowValues } from './columns';
import { oneRecordRead } from './queries';
import { planOf, type PlannedParent } from './relations';
import { writableFields } from './resource';
import { holdsSharedRows, recordScope, tenantScope } from './scope';
import type { Relation, ResourceDeclaration } from './types';
import { watchedProperties } from './watched';

/**
 * A create or an update as one batch: one round trip to the database whatever the body names
 * (docs/connection-strategy.md, "Writes in one round trip"). The checks that need the database
 * (references, children, links, the record being there) are statements of the batch that stop it
 * with the same 4xx as the interactive write; the new record's id reaches the statements after
 * its insert through the transaction (`remember`). A resource whose hooks read or write in the
 * transaction, or a body naming a relation with no plan, takes the interactive write instead.
 */
export function plannable(resource: ResourceDeclaration): boolean {
  const { planned } = resource;
  return (
    (!resource.onCreate || planned?.onCreate !== undefined) &&
    (!resource.beforeWrite || planned?.before !== undefined || planned?.first !== undefined) &&
    (!resource.afterWrite || planned?.after !== undefined)
  );
}

/** The body as the planned hooks leave it (their own copy), or undefined when it needs the interactive write. */
async function plannedRecord(
  db: Database,
  env: Env,
  resource: ResourceDeclaration,
  who: Actor,
  sent: Record<string, unknown>,
  id: number | undefined,
): Promise<Record<string, unknown> | undefined> {
  const record = { ...sent };
  if (resource.planned?.before && !(await resource.planned.before(who, record, id, db.http, env))) return undefined;
  const relationsPlanned = Object.entries(resource.relations).every(
    ([name, relation]) => record[name] === undefined || !relation.write || planOf(relation) !== undefined,
  );
  return relationsPlanned ? record : undefined;
}

/** The name the new record's id goes by in the batch. */
const CREATED = 'created_id';

/** `requireReferences` as checks of the batch. */
function referenceChecks(resource: ResourceDeclaration, who: Actor, record: Record<string, unknown>): SQL[] {
  return Object.entries(resource.fields).flatMap(([name, field]) => {
    const id = record[name];
    // a value the planned hooks set as SQL (a default, a record made in the batch) is theirs to check
    if (!field.references || typeof id !== 'number') return [];
    const { table, type } = field.references;
    return [
      refuseWhen(
        sql`NOT EXISTS (SELECT 1 FROM ${table} WHERE ${and(tenantScope(table, who.installationId), eq(table.id, id as number))})`,
        400,
        `${resource.singular}.${name}`,
        `no ${type} ${String(id)} here`,
      ),
    ];
  });
}

/** `takeDefaultFlag` as statements of the batch. */
function defaultFlagStatements(
  db: Writer,
  resource: ResourceDeclaration,
  who: Actor,
  record: Record<string, unknown>,
  id: number | undefined,
): SQL[] {
  const property = resource.defaultFlag;
  if (!property || record[property] !== true) return [];
  const table = resource.table;
  const flag = resource.fields[property]!.column;
  const others = and(
    tenantScope(table, who.installationId, false, 'write'),
    eq(flag, true),
    id === undefined ? undefined : ne(table.id, id),
  )!;
  return [
    sql`SELECT pg_advisory_xact_lock(hashtext(${`${resource.type}.${property}`}), ${who.installationId}::int)`,
    updateStatement(
      db,
      who,
      { table, type: resource.type, where: others },
      { [columnKey(table, flag)]: false },
      { [property]: flag },
    ),
  ];
}

/** The statements of each relation the body names. */
function relationStatements(
  db: Writer,
  resource: ResourceDeclaration,
  who: Actor,
  parent: PlannedParent,
  record: Record<string, unknown>,
  creating: boolean,
): SQL[] | undefined {
  const statements: SQL[] = [];
  for (const [name, relation] of Object.entries(resource.relations)) {
    if (record[name] === undefined || !relation.write) continue;
    const planned = planOf(relation)?.(db, who, parent, record[name], `${resource.singular}.${name}`, creating);
    if (!planned) return undefined;
    statements.push(...planned);
  }
  return statements;
}

/** Sends the statements, the record's read-back last: answers it as the write answers it (null: the record is not there to read). */
export async function sendWithReadBack(
  db: Database,
  resource: ResourceDeclaration,
  who: Actor,
  statements: readonly (SQL | undefined)[],
  id: SQL,
  includes: readonly string[],
) {
  const read = oneRecordRead(resource, who, id, includes);
  const results = await db.batch([
    ...statements.filter((statement): statement is SQL => statement !== undefined),
    read.statement,
  ]);
  const found = read.result(results.at(-1)!);
  return found ? { [resource.singular]: found.records[0]!, included: found.included } : null;
}

/** A create as one batch, with the body as its hooks amended it; undefined when the body needs the interactive write. */
export async function plannedCreate(
  db: Database,
  env: Env,
  resource: ResourceDeclaration,
  who: Actor,
  sent: Record<string, unknown>,
  includes: readonly string[],
) {
  const plan = await plannedCreateStatements(db, env, resource, who, sent);
  if (!plan) return undefined;
  const body = await sendWithReadBack(db, resource, who, plan.statements, plan.id, includes);
  if (body === null) throw new Error(`the new ${resource.singular} is not there to read back`);
  return { body, record: plan.record };
}

/**
 * A create's statements, to send in a batch of the caller's with more of its own after them
 * (mail making a ticket): `id` is the new record's id in the statements after them. Undefined
 * when the body needs the interactive write.
 */
export async function plannedCreateStatements(
  db: Database,
  env: Env,
  resource: ResourceDeclaration,
  who: Actor,
  sent: Record<string, unknown>,
) {
  const record = await plannedRecord(db, env, resource, who, sent, undefined);
  if (!record) return undefined;
  const writer = db.http;
  const id = recalled(CREATED);
  const relations = relationStatements(writer, resource, who, { type: resource.type, id }, record, true);
  if (!relations) return undefined;
  // the checks of what was sent, then the hooks' first statements (which may set values as SQL)
  const checks = [
    ...referenceChecks(resource, who, record),
    ...(resource.planned?.first?.(writer, who, record, undefined, env) ?? []),
  ];
  const row = {
    ...rowValues(resource.table, writableFields(resource), record),
    ...(resource.planned?.onCreate?.(who, record) ?? {}),
  };
  const statements = [
    ...checks,
    ...defaultFlagStatements(writer, resource, who, record, undefined),
    createStatement(
      writer,
      who,
      { table: resource.table, type: resource.type },
      [row],
      undefined,
      sql`id, ${remember(CREATED, sql`id`)}`,
    ),
    ...relations,
    ...(resource.planned?.after?.(writer, who, record, id, true) ?? []),
  ];
  return { statements, id, record };
}

/**
 * An update as one batch, with the body as its hooks amended it; undefined when the body needs the
 * interactive write; its answer null when the record was deleted meanwhile (after the check,
 * before the update). A record that is
 * not there (or not the caller's to change) stops the batch first: a 404, or for a record every
 * installation shares a 409 saying so, as the interactive write answers.
 */
export async function plannedUpdate(
  db: Database,
  env: Env,
  resource: ResourceDeclaration,
  who: Actor,
  id: number,
  sent: Record<string, unknown>,
  includes: readonly string[],
) {
  const record = await plannedRecord(db, env, resource, who, sent, id);
  if (!record) return undefined;
  const writer = db.http;
  const relations = relationStatements(
    writer,
    resource,
    who,
    { type: resource.type, id: sql`${id}::int` },
    record,
    false,
  );
  if (!relations) return undefined;
  const table = resource.table;
  const writable = and(recordScope(resource, who, false, 'write'), eq(table.id, id))!;
  // in the interactive write's order: the references, the hook's first work (which may lock rows
  // the record's own lock must come after, as a thread entry's ticket), then the record locked and checked
  const checks = [
    ...referenceChecks(resource, who, record),
    ...(resource.planned?.first?.(writer, who, record, id, env) ?? []),
    notWritableCheck(resource, who, id, writable),
  ];
  const statements = [
    ...checks,
    ...defaultFlagStatements(writer, resource, who, record, id),
    updateStatement(
      writer,
      who,
      { table, type: resource.type, where: writable },
      rowValues(table, writableFields(resource), record),
      watchedProperties(resource, record),
    ),
    ...relations,
    ...(resource.planned?.after?.(writer, who, record, sql`${id}::int`, false) ?? []),
  ];
  return { body: await sendWithReadBack(db, resource, who, statements, sql`${id}::int`, includes), record };
}

/** Stops the batch when the record is not the caller's to change (`notWritable`'s answers). */
export function notWritableCheck(
  resource: ResourceDeclaration,
  who: Actor,
  id: number,
  writable: SQL,
  verb: 'changed' | 'deleted' = 'changed',
): SQL {
  const table = resource.table;
  // locked as it is checked: a delete in between cannot leave the batch's other writes on a record that is gone
  const locked = sql`WITH locked AS (SELECT ${table.id} FROM ${table} WHERE ${writable} FOR UPDATE)`;
  const missing = sql`NOT EXISTS (SELECT 1 FROM locked)`;
  const notFound = sql`desk_refuse(404, 'id', ${`${resource.singular} ${id} not found`}::text)`;
  if (!holdsSharedRows(resource.table)) return sql`${locked} SELECT ${notFound} WHERE ${missing}`;
  const what = resource.sharedRows ?? `the ${resource.type} every installation shares`;
  const shared = sql`EXISTS (SELECT 1 FROM ${table} WHERE ${and(recordScope(resource, who), eq(resource.table.id, id))})`;
  return sql`${locked} SELECT CASE WHEN ${shared}
      THEN desk_refuse(409, 'id', ${`${resource.singular} ${id} is one of ${what}, which every installation shares: it cannot be ${verb}`}::text)
      ELSE ${notFound} END
    WHERE ${missing}`;
}

/** The name the ids a bulk update changed go by in the batch (a JSON array). */
const BULK_IDS = 'bulk_ids';

/**
 * A bulk update as one batch: its references checked, the resource's bulk rules before and after
 * as statements (`planned.bulkFirst`, `planned.bulkAfter`) over the changed ids, which the update
 * hands on. A dry run is the same batch ended by a statement that rolls it back on purpose, handing
 * back the ids it changed (`rollBackWith`): refused where the write would be, one round trip all
 * the same. Undefined where it needs the interactive write: a relation set in bulk without a
 * planned form, or write rules with no planned bulk form.
 */
export async function plannedBulkUpdate(
  db: Database,
  resource: ResourceDeclaration,
  who: Actor,
  target: { table: ResourceDeclaration['table']; type: string; where: SQL },
  sent: Record<string, unknown>,
  relations: ReadonlyArray<readonly [string, Relation]>,
  dryRun = false,
): Promise<number[] | undefined> {
  const { planned } = resource;
  const rules = Boolean(
    resource.beforeWrite || resource.beforeBulkWrite || resource.afterWrite || resource.afterBulkWrite,
  );
  if (relations.some(([, relation]) => !relation.bulkPlan) || (rules && !(planned?.bulkFirst && planned.bulkAfter)))
    return undefined;
  const writer = db.http;
  // the hooks' own copy of the body
  const record = { ...sent };
  if (planned?.bulkRead) await planned.bulkRead(who, record, target.where, writer);
  const ids = recalledIds(BULK_IDS);
  const remembered = sql`SELECT ${remember(BULK_IDS, sql`(SELECT coalesce(jsonb_agg(id ORDER BY id), '[]'::jsonb) FROM changed)`)}::jsonb AS ids`;
  const before = [
    ...referenceChecks(resource, who, record),
    ...(planned?.bulkFirst?.(writer, who, record, target.where) ?? []),
  ];
  const update = updateStatement(
    writer,
    who,
    target,
    rowValues(resource.table, writableFields(resource), record),
    watchedProperties(resource, record),
    remembered,
  );
  const linked = relations.flatMap(([name, relation]) =>
    relation.bulkPlan!(who, ids, record[name], `${resource.singular}.${name}`),
  );
  const statements = [...before, update, ...linked, ...(planned?.bulkAfter?.(writer, who, record, ids) ?? [])];
  if (dryRun) {
    try {
      await db.batch([...statements, rollBackWith(sql`current_setting(${`desk.${BULK_IDS}`}::text)`)]);
    } catch (error) {
      if (error instanceof RolledBack) return (JSON.parse(error.value) as number[]).map(Number);
      throw error;
    }
    throw new Error("a dry run's batch was not rolled back");
  }
  const results = await db.batch(statements);
  return (results[before.length]![0]!.ids as number[]).map(Number);
}
