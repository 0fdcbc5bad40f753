import { z } from 'zod';
import { ignoringReadOnly, RECORD_ENVELOPE } from './body';
import type { ResourceDeclaration } from './resource';

const memo = new WeakMap<ResourceDeclaration, ReturnType<typeof build>>();

function build(resource: ResourceDeclaration) {
  const ignored = [...RECORD_ENVELOPE, ...Object.keys(resource.computed ?? {}), ...(resource.ignored ?? [])];
  const plain: Record<string, z.ZodType> = {};
  const required: Record<string, z.ZodType> = {};
  for (const [name, field] of Object.entries(resource.fields)) {
    plain[name] = field.schema.optional();
    required[name] = field.required ? field.schema : field.schema.optional();
  }
  const relations: Record<string, z.ZodType> = {};
  for (const [name, relation] of Object.entries(resource.relations)) {
    if (relation.bodySchema) relations[name] = relation.bodySchema.optional();
  }

  const reference = z.object({ id: z.number().int(), type: z.string() });
  const record: Record<string, z.ZodType> = { id: z.number().int(), type: z.literal(resource.type) };
  for (const [name, field] of Object.entries(resource.fields)) record[name] = field.schema;
  for (const [name, field] of Object.entries(resource.computed ?? {})) {
    record[name] = field.type === 'integer' ? z.number().int() : field.type === 'boolean' ? z.boolean() : z.string();
  }
  for (const [name, relation] of Object.entries(resource.relations)) {
    if (relation.cardinality === 'none') continue;
    record[name] = (relation.cardinality === 'many' ? z.array(reference) : reference.nullable())
      .optional()
      .describe(`present when \`includes\` names ${name}`);
  }
  Object.assign(record, {
    state: z.enum(['active', 'deleted']),
    createdAt: z.iso.datetime(),
    createdBy: reference.nullable(),
    updatedAt: z.iso.datetime(),
    updatedBy: reference.nullable(),
    deletedAt: z.iso.datetime().optional(),
    deletedBy: reference.nullable().optional(),
  });

  return {
    create: ignoringReadOnly(z.strictObject({ ...required, ...relations }), ignored),
    patch: ignoringReadOnly(z.strictObject({ ...plain, ...relations }), ignored),
    /** bulk update sets plain properties only */
    bulkPatch: ignoringReadOnly(z.strictObject(plain), ignored),
    record: z.object(record).meta({ id: resource.singular }),
  };
}

/** The body and record schemas of a resource, built once from its declaration. */
export function schemasOf(resource: ResourceDeclaration) {
  let schemas = memo.get(resource);
  if (!schemas) memo.set(resource, (schemas = build(resource)));
  return schemas;
}
