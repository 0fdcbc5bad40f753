import { z } from 'zod';
import { AUDIT_PROPERTIES, recordBody, writableRecord } from '../http/record-body';
import {
  fieldsParam,
  filterArgsSchema,
  filterParam,
  includesParam,
  orderByParam,
  orderModeParam,
  pageMetaSchema,
  pageParam,
  pageSizeParam,
  paginationSchema,
} from './list-params';
import { recordSchema } from './record-schema';
import { refSchema } from './wire';
import { integerParam } from '../http/params';
import { orderNamesOf } from './fields';
import { shapeOf, writableFields } from './resource';
import type { ResourceDeclaration } from './types';

const memo = new WeakMap<ResourceDeclaration, ResourceSchemas>();

/** `included`: for each related type, the records included, each once. */
function includedSchema(resource: ResourceDeclaration) {
  const types: Record<string, z.ZodType> = {};
  for (const relation of Object.values(resource.relations)) {
    types[relation.type] ??= z.array(relation.schema).optional();
  }
  return z.object(types).meta({ description: 'the records `includes` asked for, by type, each once' });
}

/** The names `fields` accepts: every property of the record, and its relations' references. */
function propertyNames(resource: ResourceDeclaration): string[] {
  const references = Object.entries(resource.relations)
    .filter(([, r]) => r.cardinality !== 'none')
    .map(([name]) => name);
  const readable = Object.entries(resource.fields)
    .filter(([, field]) => !field.writeOnly)
    .map(([name]) => name);
  return [...readable, ...Object.keys(resource.computed ?? {}), ...references, ...AUDIT_PROPERTIES];
}

/** A property an update takes that a bulk update does not (one each record holds apart, a secret a write hook seals). */
const notInBulk = z
  .unknown()
  .refine(() => false, 'is not set in a bulk update: change it on each record')
  .optional()
  .meta({ not: {}, description: 'not set in a bulk update (a 400)' });

function build(resource: ResourceDeclaration) {
  const writable = writableFields(resource);
  const readOnly = [
    ...Object.keys(resource.fields).filter((name) => !(name in writable)),
    ...Object.keys(resource.computed ?? {}),
    ...Object.entries(resource.relations)
      .filter(([, r]) => !r.bodySchema)
      .map(([name]) => name),
    ...(resource.ignored ?? []),
  ];
  const plain: Record<string, z.ZodType> = {};
  const required: Record<string, z.ZodType> = {};
  for (const [name, field] of Object.entries(writable)) {
    plain[name] = field.schema.optional();
    required[name] = field.required ? field.schema : field.schema.optional();
  }
  const relations: Record<string, z.ZodType> = {};
  for (const [name, relation] of Object.entries(resource.relations)) {
    if (relation.bodySchema) relations[name] = relation.bodySchema.optional();
  }

  const references: Record<string, z.ZodType> = {};
  for (const [name, relation] of Object.entries(resource.relations)) {
    if (relation.cardinality === 'none') continue;
    const reference = relation.referenceSchema ?? refSchema(relation.type);
    references[name] = (relation.cardinality === 'many' ? z.array(reference) : reference.nullable()).meta({
      description: `present when \`includes\` names ${name}`,
    });
  }
  // No caller: the SQL of computed properties does not matter to their schema.
  const record = recordSchema(shapeOf(resource), references);
  const included = includedSchema(resource);
  const includeNames = Object.keys(resource.relations);
  const orderNames = orderNamesOf(resource);

  const listQuery = z.object({
    filter: filterParam(resource),
    orderBy: orderByParam(orderNames),
    orderMode: orderModeParam,
    page: pageParam,
    pageSize: pageSizeParam,
    includes: includesParam(includeNames, resource.includeAliases),
    fields: fieldsParam(propertyNames(resource)),
  });

  const optional = (schemas: Record<string, z.ZodType> = {}) =>
    Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, schema.optional()]));
  const inputs = optional(resource.inputs);
  const create = writableRecord(
    { ...required, ...relations, ...optional(resource.createInputs), ...inputs },
    readOnly,
  ).meta({ id: `${resource.title.one}Create` });
  const patch = writableRecord({ ...plain, ...relations, ...inputs }, readOnly).meta({
    id: `${resource.title.one}Update`,
  });
  // Relations are set in bulk only where they say how (`bulkWrite`).
  // A secret is sealed per record (bound to the record) by its resource's write hook: one value written over many records it never is.
  const bulkPlain = Object.fromEntries(
    Object.entries(plain).filter(([name]) => !writable[name]!.notInBulk && !writable[name]!.writeOnly),
  );
  const bulkRelations = Object.fromEntries(
    Object.entries(resource.relations).flatMap(([name, r]) =>
      r.bulkWrite && r.bodySchema ? [[name, r.bodySchema.optional()]] : [],
    ),
  );
  const bulkReadOnly = readOnly.filter((name) => !(name in resource.relations));
  // What an update takes and a bulk update neither takes nor drops as read-only is known: naming it in bulk is a 400, never ignored.
  const apart = Object.keys({ ...plain, ...relations, ...inputs }).filter(
    (name) => !(name in bulkPlain) && !(name in bulkRelations) && !bulkReadOnly.includes(name),
  );
  const bulkPatch = writableRecord(
    {
      ...Object.fromEntries(apart.map((name) => [name, notInBulk])),
      ...bulkPlain,
      ...bulkRelations,
      filter_args: filterArgsSchema(resource.filter).optional(),
    },
    bulkReadOnly,
  ).meta({
    id: `${resource.title.one}BulkUpdate`,
  });

  return {
    record,
    create,
    patch,
    bulkPatch,
    // the request's own inputs (a trigger's `applyToExistingTickets`) may stand beside the wrapper, as the platform's clients send them
    createBody: recordBody(
      resource.singular,
      create,
      resource.includedWrites,
      Object.keys({ ...resource.createInputs, ...resource.inputs }),
    ),
    patchBody: recordBody(resource.singular, patch, resource.includedWrites, Object.keys(resource.inputs ?? {})),
    bulkPatchBody: recordBody(resource.singular, bulkPatch, [], ['filter_args']),
    /** `{"company": {...}, "included": {...}}` */
    one: z.object({ [resource.singular]: record, included }).meta({ id: `${resource.title.one}Body` }),
    /** `{"companies": [...], "included": {...}, "meta": {"page": ...}, "pagination": {...}}` */
    many: z
      .object({
        [resource.listKey ?? resource.type]: z.array(record),
        included,
        meta: z.object({ page: pageMetaSchema }),
        pagination: paginationSchema,
      })
      .meta({ id: `${resource.title.many}Body` }),
    listQuery: listQuery.extend(
      Object.fromEntries(Object.entries(resource.listParams ?? {}).map(([name, param]) => [name, param.schema])),
    ) as unknown as typeof listQuery,
    oneQuery: z.object({
      includes: includesParam(includeNames, resource.includeAliases),
      fields: fieldsParam(propertyNames(resource)),
    }),
    writeQuery: z.object({ includes: includesParam(includeNames, resource.includeAliases) }),
    /** only for a resource whose records other records use */
    deleteQuery: resource.usedBy?.length
      ? z.object({
          replaceWith: integerParam(
            `the ${resource.singular} the records using this one move to; required while any does (${resource.usedBy.map((use) => `${use.type}' \`${use.property}\``).join(', ')})`,
          ).optional(),
        })
      : undefined,
    bulkQuery: z.object({ filter: filterParam(resource, true) }),
    /** a bulk update may name its filter in the body's `filter_args` instead */
    bulkUpdateQuery: z.object({ filter: filterParam(resource) }),
  };
}

export type ResourceSchemas = ReturnType<typeof build>;

/** A list's validated query (`listQuery`): filter, order, paging, `includes` and `fields`. */
export type ListQuery = z.output<ResourceSchemas['listQuery']>;
/** A GET's validated query: `includes` and `fields`. */
export type OneQuery = z.output<ResourceSchemas['oneQuery']>;
/** A write's validated query: `includes`. */
export type WriteQuery = z.output<ResourceSchemas['writeQuery']>;
/** A delete's validated query: `replaceWith`, for a resource whose records other records use. */
export type DeleteQuery = { replaceWith?: number };
/** A bulk operation's validated query: `filter`. */
export type BulkQuery = z.output<ResourceSchemas['bulkQuery']>;
export type BulkUpdateQuery = z.output<ResourceSchemas['bulkUpdateQuery']>;

/** The body, record and query schemas of a resource, built once from its declaration. */
export function schemasOf(resource: ResourceDeclaration): ResourceSchemas {
  let schemas = memo.get(resource);
  if (!schemas) memo.set(resource, (schemas = build(resource)));
  return schemas;
}
