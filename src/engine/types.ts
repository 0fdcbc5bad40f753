import type { Column, SQL } from 'drizzle-orm';
import type { PgColumn, PgDatabase, PgTable } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import type { Env } from '../app-env';
import type { Actor } from '../auth/principal';
import type { Queryable, Transaction } from '../db/client';
import type { UserRole } from '../db/schema';
import type { FilterFieldType } from './filter';
import type { TypedSql, WireValue } from './wire';

/**
 * The types a resource is declared with, in a module of their own that imports nothing of the
 * engine's code: every other part of the engine may use them without an import circle.
 */

/** A table with the audit columns of `auditColumns()`. */
export type AuditedTable = PgTable & {
  id: PgColumn;
  /** absent only on global tables (catalogues every installation shares) */
  installationId?: PgColumn;
  state: PgColumn;
  createdAt: PgColumn;
  createdBy: PgColumn;
  updatedAt: PgColumn;
  updatedBy: PgColumn;
  deletedAt: PgColumn;
  deletedBy: PgColumn;
};

/** How records of one table look on the wire: the audit set plus these properties. */
export interface RecordShape {
  /** lowercase plural type name, also the `included` key */
  type: string;
  table: AuditedTable;
  /** its properties; one named `type` is the record's own (a phone's kind), replacing the type name */
  properties: Record<string, WireValue>;
  /** the record schema's name in the OpenAPI document */
  component?: string;
  /** the record type of its events, when its `type` names records of another table too (a customer's contacts and chat visitors are both `contacts`) */
  eventType?: string;
  /**
   * Which of these records a caller may newly link where a relation links them (files: the attach
   * rule), and the refusal of one that is not; absent: any live record of the installation.
   */
  linkable?: { where: (who: Actor) => SQL; refusal: (id: number) => string };
}

/** A property of a resource's records, stored in a column. */
export interface WritableField {
  column: PgColumn;
  /** the value a client writes; nullable columns accept null */
  schema: z.ZodType;
  /** must be present on create */
  required?: boolean;
  /** large: its events hold an md5 digest of it (it changed), not its value (a thread entry's body, kept in revisions) */
  digestInEvents?: boolean;
  /** set by the server only: read, never written (a client sending it back is ignored) */
  readOnly?: boolean;
  /** written, never read: a secret (stored encrypted by the resource's hook), in no answer and no event */
  writeOnly?: boolean;
  /** how the property reads, when not as the bare column (a reference, say) */
  output?: TypedSql;
  /** the value names a record of this table, which must be live in the caller's installation */
  references?: { table: AuditedTable; type: string };
  /** one record's own value (unique, or written by rules of its own): a bulk update may not set it */
  notInBulk?: boolean;
}

/** A read-only property computed in SQL, usable in `filter` and `orderBy`; it may depend on the caller. */
export interface ComputedField {
  expr: SQL | ((who: Actor) => SQL);
  type: FilterFieldType;
  /** what it reads as */
  schema: z.ZodType;
}

/** A filter name over a column of related records. */
export interface RelatedFilter {
  /** the related records' column or expression */
  expr: Column | SQL;
  type: FilterFieldType;
  /** `EXISTS` over the related records of the current row that meet the condition; absent: `expr` is a column of the record, under the platform's name (`inboxes.id`) */
  exists?: (condition: SQL) => SQL;
  /** compared ignoring case (`expr` is then lowercase, and so is every value) */
  caseInsensitive?: boolean;
}

/** Names for people: `operationId`s (`listCompanies`, `getCompany`) and the document's group. */
interface ResourceTitle {
  /** `Company` */
  one: string;
  /** `Companies` */
  many: string;
  /** the group of the spec its operations belong to; `many` when absent */
  group?: string;
}

/**
 * A resource, declared once: the generic routes (`routes.ts`) give it list, get, create,
 * patch, delete, bulk update and bulk delete.
 */
export interface ResourceDeclaration {
  /** lowercase plural type name: the path segment, list wrapper and `included` key */
  type: string;
  /** the path under `/v2/` when not `type` (a help-docs article's `helpdocssites/helpdocarticles`, as the platform's client calls it) */
  path?: string;
  /** lowercase singular: the wrapper of one record */
  singular: string;
  /** the wrapper of a list, when the platform's clients read another than `type` (`ticketSources`) */
  listKey?: string;
  title: ResourceTitle;
  table: AuditedTable;
  fields: Record<string, WritableField>;
  computed?: Record<string, ComputedField>;
  /** names `filter` accepts (from the audit set, `fields`, `computed` and `relatedFilter`) */
  filter: readonly string[];
  /**
   * Filter names over related records (`contacts.value`): a condition holds when some related
   * record meets it. Those with `exists` filter only; the others sort too.
   */
  relatedFilter?: Record<string, RelatedFilter>;
  /** names `orderBy` accepts beyond `filter`'s, each with its sort expression */
  orderByExtra?: Record<string, SQL | Column>;
  /** query parameters of its list beyond the generic ones (a ticket's `customfields`), each ANDed with the filter */
  listParams?: Record<string, ListParam>;
  /** the `orderBy` of a list that names none (ties, and no default, go by id) */
  defaultOrderBy?: string;
  /** `includes` names, each a relation written and read through the property of the same name */
  relations: Record<string, Relation>;
  /** other `includes` names a relation answers to (the platform's `ticketactivities` for a ticket's `activities`) */
  includeAliases?: Record<string, string>;
  /**
   * Database constraints (unique indexes, checks, foreign keys) by name, and what a violation
   * answers: a unique one 409, the others 400, each naming the property at fault.
   */
  constraints?: Record<string, { source: string; detail: string }>;
  /** who may read and who may write */
  access: { read: readonly UserRole[]; write: readonly UserRole[] };
  /**
   * The bodies a reader sends to try its create and its update (the record's properties, as the
   * wrapper holds them): the document's examples, sent in order by the examples' walk
   * (`openapi/examples.ts`). A reference names an id of its type; the walk sends a record of that
   * type in its own installation for it.
   */
  examples?: { create?: Record<string, unknown>; update?: Record<string, unknown> };
  /** the operations the generic routes serve; all of them when absent */
  operations?: readonly Operation[];
  /** a boolean field of which an installation has one live record true (its default): setting it takes it from the others (`default-flag.ts`) */
  defaultFlag?: string;
  /**
   * What the rows without an installation are called, for the 409 a write naming one answers
   * (`the platform's statuses`): a table whose installation may be null holds rows every
   * installation reads and none changes (`scope.ts`).
   */
  sharedRows?: string;
  /** the states its records are live in, when more than `active` (a trigger's `inactive` and `incomplete`); `deleted` is never live */
  liveStates?: readonly string[];
  /** `global`: a catalogue every installation reads (no installation column); default `installation` */
  tenancy?: 'installation' | 'global';
  /** a rule narrowing which of the installation's records the caller sees at all */
  scope?: (who: Actor) => SQL | undefined;
  /**
   * Body properties of a create that are no column of the record, handled by its write hooks (a
   * ticket's first `message`): never in an update, never read.
   */
  createInputs?: Record<string, z.ZodType>;
  /**
   * Body properties of a create or an update that are no column of the record (a ticket's
   * `isRead`, which is the caller's), handled by its write hooks: never in a bulk update.
   */
  inputs?: Record<string, z.ZodType>;
  /** relations whose entries a body may also send under `included.<name>` (a customer's contacts, as the platform's client sends them) */
  includedWrites?: readonly string[];
  /** body properties accepted and ignored (beside the audit set, `id`, `type` and read-only fields) */
  ignored?: readonly string[];
  /**
   * Runs in the write's transaction before a create (`id` undefined) or an update: checks that
   * need the database or several properties, and changes the validated wire record (which may
   * be amended) or other rows (e.g. clearing another default). Throw an ApiError to refuse.
   * What it answers is the write's own state (the record as it was, what the body asked that is
   * no column), handed to `afterWrite` of the same record as `before`.
   */
  beforeWrite?(context: WriteContext, record: Record<string, unknown>, id: number | undefined): unknown;
  /**
   * Runs in the write's transaction after the record and its relations are written (`id` is the
   * record's, `created` whether it is new, `before` what `beforeWrite` answered for it): rules over
   * the record as written, relations included, and the writes they lead to. Throw an ApiError to
   * refuse the whole write. (A method, so that a resource's hooks name the type of their state.)
   */
  afterWrite?(
    context: WriteContext,
    record: Record<string, unknown>,
    id: number,
    created: boolean,
    before: unknown,
  ): Promise<void> | void;
  /**
   * Runs once a single update or delete of the record has committed (`record` is the update's
   * body; absent for a delete): effects outside the database, as an isolate's caches.
   */
  afterCommit?: (id: number, record?: Record<string, unknown>) => void;
  /**
   * `beforeWrite`'s rules for a bulk update, over all the selected records at once (`ids`, locked)
   * in its transaction before anything changes (a dry run's too): a few statements, where
   * `beforeWrite` for each record would be a few a record. Absent: a bulk update runs
   * `beforeWrite` for each selected record. Throwing refuses the whole update.
   */
  beforeBulkWrite?: (context: WriteContext, record: Record<string, unknown>, ids: number[]) => Promise<void>;
  /**
   * `afterWrite`'s rules for a bulk update, once it changed `ids`, in its transaction (a dry
   * run's too), over all of them at once. Absent: a bulk update runs `afterWrite` for each
   * changed record. Throwing refuses the whole update.
   */
  afterBulkWrite?: (context: WriteContext, record: Record<string, unknown>, ids: number[]) => Promise<void>;
  /**
   * Properties of other records that name this one (an inbox's default `ticketstatus`): a record
   * in use is deleted only with `replaceWith`, another record they are moved to (409 otherwise).
   */
  usedBy?: readonly RecordUse[];
  /** Runs in the delete's transaction before anything else: throw an ApiError to refuse (a system record). */
  beforeDelete?: (context: WriteContext, id: number) => Promise<void> | void;
  /** after a single delete, in its transaction (what depends on the record, made right again) */
  afterDelete?: (context: WriteContext, id: number) => Promise<void>;
  /** values the server sets on a new record, whatever the body says */
  onCreate?: (context: WriteContext) => Promise<Record<string, unknown>> | Record<string, unknown>;
  /**
   * `beforeWrite` and `afterWrite` for a write sent as one batch (`planned-write.ts`, one round
   * trip): `before` does in the Worker what `beforeWrite` does, on the body's own copy, answering
   * false when this body needs the interactive write; where a rule truly must read before it can
   * decide what to write, it may read through `read` (over HTTP, outside the write's transaction:
   * a second round trip, which docs/connection-strategy.md lists with its reason), and use the
   * Worker's bindings (`env`: a mail domain, a sealing key); `after` gives the
   * statements of `afterWrite`, run in the batch after the record and its relations, the record's
   * id as SQL. A resource with a hook that has no planned form here always writes interactively.
   */
  planned?: {
    before?: (
      who: Actor,
      record: Record<string, unknown>,
      id: number | undefined,
      read: Queryable & Writer,
      env: Env,
    ) => boolean | Promise<boolean>;
    /** statements before the record is written (checks, values handed on), after the references are checked */
    first?: (db: Writer, who: Actor, record: Record<string, unknown>, id: number | undefined, env: Env) => SQL[];
    after?: (db: Writer, who: Actor, record: Record<string, unknown>, id: SQL, created: boolean) => SQL[];
    /**
     * `onCreate` where it needs no database (a new token): the values the server sets on a new
     * record, given the body as `before` left it (an `id` reserved there: the insert takes it)
     */
    onCreate?: (who: Actor, record: Record<string, unknown>) => Record<string, unknown>;
    /** `beforeDelete` as statements of a single delete's batch, before it (a refusal stops the batch) */
    beforeDelete?: (who: Actor, id: number, env: Env) => SQL[];
    /**
     * `beforeDelete` as statements of a bulk delete's batch, before it, over the records the
     * filter selected (`selected`, a condition on the resource's table, the selection locked and
     * fixed by then): a refusal stops the batch, and none is deleted. Absent where the resource
     * has `beforeDelete`: a bulk delete takes the interactive write.
     */
    bulkBeforeDelete?: (who: Actor, selected: SQL, env: Env) => SQL[];
    /** `afterDelete` as statements of a single delete's batch, after the delete (a record not deleted: they find nothing to do) */
    afterDelete?: (db: Writer, who: Actor, id: number) => SQL[];
    /**
     * `beforeBulkWrite` and `afterBulkWrite` as statements of a bulk update's batch: before, over
     * the records the filter selects (`selected`, a condition on the resource's table, as they
     * are before the update); after, over the changed ids (SQL, a set)
     */
    bulkFirst?: (db: Writer, who: Actor, record: Record<string, unknown>, selected: SQL) => SQL[];
    /**
     * Where a bulk rule must decide in the Worker from what is stored: a read of the records the
     * filter selects (`selected`) before the batch (a second exchange, listed in
     * docs/connection-strategy.md), amending the body's own copy for `bulkFirst` and `bulkAfter`
     */
    bulkRead?: (who: Actor, record: Record<string, unknown>, selected: SQL, read: Queryable) => Promise<void>;
    bulkAfter?: (db: Writer, who: Actor, record: Record<string, unknown>, ids: SQL) => SQL[];
  };
}

/** What builds statements (and runs them): the HTTP client and a transaction are both a PgDatabase. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- either client's
export type Writer = PgDatabase<any, any, any>;

/** A list query parameter of a resource's own: its schema, and the records its value selects. */
export interface ListParam {
  /** the parameter as the query carries it (optional) */
  schema: z.ZodType;
  /** the condition its value selects for the caller (it may look things up: a 400 names what is wrong); undefined: no condition */
  where(db: Queryable, who: Actor, value: unknown): Promise<SQL | undefined>;
}

/** A property of another resource's records naming a record of this one. */
export interface RecordUse {
  /** the records' type name, for their `updated` events and the 409's words */
  type: string;
  table: AuditedTable;
  /** the column holding the id */
  column: PgColumn;
  /** the wire property it reads as */
  property: string;
}

/** What a write hook gets: the open transaction, who writes, and the Worker's bindings and secrets. */
export interface WriteContext {
  tx: Transaction;
  who: Actor;
  env: Env;
}

export type Operation = 'list' | 'get' | 'create' | 'update' | 'delete' | 'bulkUpdate' | 'bulkDelete';

/** The record a relation is written on: where its events say the change came from. */
export interface Parent {
  type: string;
  id: number;
}

/**
 * A record as the values of a `json_build_array`, with what makes the wire record of them: the
 * engine's reads (`queries.ts`) use it for a resource's own records and those of the relations
 * in `relations.ts` (`recordValues` in `record-json.ts` makes it). It reads exactly as
 * `recordJson` then `finishRecord` give it (the same properties, values and order), for about a
 * third of Postgres's work: `json_build_object` costs far more a value than `json_build_array`,
 * `to_char` far more than a timestamp's own JSON, and the audit references leave Postgres as bare
 * ids. The keys, the type name, the references and the times' last form are made in the Worker,
 * in the loop of `decode`.
 */
export interface RecordValues {
  /** the values, comma-separated: the arguments of a `json_build_array(...)` */
  readonly values: SQL;
  /** how many values `values` holds */
  readonly count: number;
  /** the wire record from `row[offset]` on */
  decode(row: readonly unknown[], offset: number): Record<string, unknown>;
}

/**
 * How the related records of a whole page are read at once (`read-parts.ts`): one part of the
 * statement per include over the page's ids, instead of a subquery for every row.
 *
 * - `children`: `rows(ids)` is a JSON array of `[parent id, ...record values]` of the live
 *   related records of every parent in `ids` (an SQL int array), ordered by the related id;
 *   with `linkMeta`, `[parent id, link meta, ...record values]`, the meta a reference carries.
 * - `referenced`: the records named by columns of the parent (`referencedBy`): `refs` gives each
 *   parent row's ids (a JSON array, nulls and repeats included), and `rows` the records those
 *   name over the whole page, each once, `[...record values]`, ordered by id.
 */
export type PageRead =
  | { kind: 'children'; record: RecordValues; rows(ids: SQL): SQL; linkMeta?: boolean }
  | {
      kind: 'referenced';
      record: RecordValues;
      refs(parent: AuditedTable): SQL;
      rows(parent: AuditedTable, ids: SQL): SQL;
    };

/** What every relation has, however it is read. */
interface RelationBase {
  /** type name of the related records, their `included` key */
  readonly type: string;
  /** the schema of one related record, as `included` holds it */
  readonly schema: z.ZodType;
  /**
   * many: the property holds an array of references; one: a reference or null; none: the
   * record already refers to them by other properties (`createdBy`...), so only `included` fills.
   */
  readonly cardinality: 'many' | 'one' | 'none';
  /** absent: read-only, no body property */
  readonly bodySchema?: z.ZodType;
  /** a reference's schema, when it carries more than `{id, type}` (a member's `meta.access`) */
  readonly referenceSchema?: z.ZodType;
  write?(tx: Transaction, who: Actor, parent: Parent, value: unknown, source: string): Promise<void>;
  /**
   * Writes the property over every record a bulk update changed (`ids`), as `write` would for each
   * (the same events); a relation without it is not set in bulk.
   */
  bulkWrite?(tx: Transaction, who: Actor, ids: readonly number[], value: unknown, source: string): Promise<void>;
  /** `bulkWrite` as statements of the bulk update's batch, `ids` the changed records (SQL); a relation without it is set in bulk interactively */
  bulkPlan?(who: Actor, ids: SQL, value: unknown, source: string): SQL[];
}

/** A relation made by `relations.ts`: read for a whole page at once, the same for every caller. */
export interface PageRelation extends RelationBase {
  readonly page: PageRead;
  readonly recordsJson?: undefined;
  readonly dependsOnCaller?: false;
}

/** A relation defined elsewhere (an app's settings): read row by row through its own subquery. */
export interface RowRelation extends RelationBase {
  readonly page?: undefined;
  /** the related records of the current parent row, as a JSON array; they may depend on the caller */
  recordsJson(parent: AuditedTable, who: Actor): SQL;
  /** its records differ by caller (then its SQL is built per request, not once) */
  readonly dependsOnCaller?: boolean;
}

/**
 * A relation of a resource, named by an `includes` name. It is read as the related live records
 * of each parent record, and written through the body property of the same name.
 */
export type Relation = PageRelation | RowRelation;
