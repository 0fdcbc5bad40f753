// The references in a request example, found through the body's schema: a reference is an object
// with an `id` whose schema names the record type it points to (`"type": {"enum": ["inboxes"]}`).

type Schema = Record<string, any>;

function deref(schema: Schema | undefined, doc: any): Schema | undefined {
  let at = schema;
  while (at?.$ref) at = doc.components.schemas[String(at.$ref).split('/').at(-1)!];
  return at;
}

function alternatives(schema: Schema | undefined, doc: any): Schema[] {
  const at = deref(schema, doc);
  if (!at) return [];
  const choices = at.anyOf ?? at.oneOf;
  return choices ? choices.flatMap((choice: Schema) => alternatives(choice, doc)) : [at];
}

/** The alternative of `schema` that describes `value`: for an object, the one whose properties hold all of its names, if any. */
function fitting(value: unknown, schema: Schema | undefined, doc: any): Schema | undefined {
  const choices = alternatives(schema, doc);
  if (Array.isArray(value)) return choices.find((choice) => choice.type === 'array' || choice.items);
  if (!value || typeof value !== 'object') return undefined;
  const objects = choices.filter((choice) => choice.properties);
  const names = Object.keys(value);
  return objects.find((choice) => names.every((name) => name in choice.properties)) ?? objects[0];
}

/** The record type a reference's schema names: in any of its object forms (`{"id": 0}` for none may come first). */
function referenceType(schema: Schema | undefined, doc: any): string | undefined {
  for (const form of alternatives(schema, doc)) {
    for (const choice of alternatives(form.properties?.type, doc)) {
      const named = choice.enum?.find((value: unknown) => typeof value === 'string' && value !== '');
      if (named) return named;
    }
  }
  return undefined;
}

/** The record types of the document: each list's last path segment (`/v2/tickets.json`: `tickets`). */
export function typeNamedIn(doc: any): TypeNamed {
  const types = new Set(
    Object.keys(doc.paths)
      .filter((path) => !path.includes('{') && path.endsWith('.json') && doc.paths[path].get)
      .map((path) =>
        path
          .split('/')
          .at(-1)!
          .replace(/\.json$/, ''),
      ),
  );
  return (property) => {
    if (!property) return undefined;
    return [property, `${property}s`, `${property}es`, `${property.replace(/y$/, '')}ies`].find((name) =>
      types.has(name),
    );
  };
}

/** Names a property's record type when its schema does not (`"tickets": [{"id": 8}]` in a bulk body): the type of that name, if there is one. */
export type TypeNamed = (property: string | undefined) => string | undefined;

/** The types of the references in `value`. */
export function referencesIn(
  value: unknown,
  schema: Schema | undefined,
  doc: any,
  typeNamed: TypeNamed,
  property?: string,
): string[] {
  const at = fitting(value, schema, doc);
  if (!at) return [];
  if (Array.isArray(value)) return value.flatMap((item) => referencesIn(item, at.items, doc, typeNamed, property));
  const record = value as Record<string, unknown>;
  const own = 'id' in record ? (referenceType(schema, doc) ?? typeNamed(property)) : undefined;
  return [
    ...(own ? [own] : []),
    ...Object.entries(record).flatMap(([name, item]) => referencesIn(item, at.properties[name], doc, typeNamed, name)),
  ];
}

/** `value` with each reference's id taken as `idOf` its type and written id answers (kept where it answers none). */
export async function resolvedBody(
  value: unknown,
  schema: Schema | undefined,
  doc: any,
  typeNamed: TypeNamed,
  idOf: (type: string, written: string | number) => Promise<number | undefined>,
  property?: string,
): Promise<unknown> {
  const at = fitting(value, schema, doc);
  if (!at) return value;
  if (Array.isArray(value))
    return Promise.all(value.map((item) => resolvedBody(item, at.items, doc, typeNamed, idOf, property)));
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(record))
    out[name] = at.properties[name] ? await resolvedBody(item, at.properties[name], doc, typeNamed, idOf, name) : item;
  const type = 'id' in record ? (referenceType(schema, doc) ?? typeNamed(property)) : undefined;
  // an id the walk cannot place would be sent as written, and work only where it happens to exist
  if ('id' in record && type === undefined)
    throw new Error(`cannot tell what type of record ${property ?? 'the body'}'s id names`);
  const id = type === undefined ? undefined : await idOf(type, record.id as string | number);
  if (id !== undefined) out.id = id;
  return out;
}
