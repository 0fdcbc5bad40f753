import { z } from 'zod';
import { ApiError, type ErrorEntry } from './errors';
import { ignoredPaths, noteIgnored } from './ignored-properties';
import { pathName, type JsonPath } from './json-body';

/** Audit properties a client may send back (even as 0 or null): accepted and ignored. */
export const AUDIT_PROPERTIES = [
  'state',
  'createdAt',
  'createdBy',
  'updatedAt',
  'updatedBy',
  'deletedAt',
  'deletedBy',
] as const;

/**
 * What a client reads back about a whole record and may send back in it: ignored on create and
 * update (`included` and `meta` may sit inside a bare body an SDK sends back).
 */
export const RECORD_ENVELOPE = ['id', 'type', 'included', 'meta'] as const;

const readOnly = z.unknown().optional().meta({ readOnly: true, description: 'read-only: accepted and ignored' });

/**
 * The properties of `shape` but `dropped`, as validated; any other property dropped too, its
 * path noted for the answer's `X-Ignored-Properties` (`ignored-properties.ts`), with the paths
 * the kept values noted in turn.
 */
function keepKnown<S extends z.ZodRawShape>(shape: z.ZodRawShape, dropped: readonly string[]) {
  return (parsed: Record<string, unknown>) => {
    const kept: Record<string, unknown> = {};
    const ignored: JsonPath[] = [];
    for (const [key, value] of Object.entries(parsed)) {
      if (!Object.hasOwn(shape, key)) ignored.push([key]);
      else if (!dropped.includes(key)) {
        kept[key] = value;
        for (const path of ignoredPaths(value)) ignored.push([key, ...path]);
      }
    }
    return noteIgnored(kept, ignored) as z.output<z.ZodObject<S>>;
  };
}

/**
 * An object of a request body: its properties validated (a wrong value is a 400 naming it), and
 * any other property accepted and ignored, as the platform does: dropped, and named in the
 * answer's `X-Ignored-Properties`.
 */
export function bodyObject<S extends z.ZodRawShape>(shape: S) {
  return z.looseObject(shape).transform(keepKnown<S>(shape, []));
}

/**
 * A record as a client writes it, as `bodyObject` takes it, with the read-only properties a
 * client read and may send back (the audit set, `id`, `type`, `included`, `meta`, and
 * `alsoReadOnly`) accepted and dropped without being named.
 */
export function writableRecord<S extends z.ZodRawShape>(
  shape: S,
  alsoReadOnly: readonly string[] = [],
  notAnObject?: string,
) {
  const ignored = [...new Set([...RECORD_ENVELOPE, ...AUDIT_PROPERTIES, ...alsoReadOnly])].filter(
    (name) => !(name in shape),
  );
  const accepted = { ...shape, ...Object.fromEntries(ignored.map((name) => [name, readOnly])) };
  // `notAnObject`: what to say when the value is no object at all (what its properties lack, they say themselves)
  return z
    .looseObject(accepted, notAnObject ? { error: notAnObject } : undefined)
    .transform(keepKnown<S>(accepted, ignored));
}

/** Zod's issues as entries of the error body, each naming the property at fault. */
/** What a format zod names only as "Invalid ..." expects, with an example a reader can copy. */
const FORMATS: Record<string, string> = {
  datetime: 'must be a time as RFC 3339 with its offset, e.g. 2026-11-29T10:00:00Z',
  date: 'must be a day as YYYY-MM-DD, e.g. 2026-11-29',
  time: 'must be a time of day as HH:MM or HH:MM:SS, e.g. 09:30',
  email: 'must be an email address, e.g. ann@example.com',
  url: 'must be an absolute URL, e.g. https://example.com/hooks',
  uuid: 'must be a UUID, e.g. 3bb251dc-5a8e-4c61-9a8f-4d1a0c3e2b7f',
};

/** zod's words for an issue, or what was expected where zod says only that the input is invalid; a schema's own message is kept. */
function teach(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_format' && issue.message.startsWith('Invalid'))
    return FORMATS[issue.format] ?? issue.message;
  return issue.message;
}

export function issuesToErrors(issues: readonly z.core.$ZodIssue[], prefix: string): ErrorEntry[] {
  return issues.flatMap((issue): ErrorEntry[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        code: 'invalid',
        source: pathName(prefix, [...issue.path, key]),
        detail: 'unknown property',
      }));
    }
    const missing = issue.code === 'invalid_type' && issue.input === undefined;
    return [{ code: 'invalid', source: pathName(prefix, issue.path), detail: missing ? 'must be set' : teach(issue) }];
  });
}

/** Validates with the schema or answers 400 naming every property at fault. */
export function validate<T extends z.ZodType>(schema: T, value: unknown, prefix: string): z.output<T> {
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) throw new ApiError(400, issuesToErrors(result.error.issues, prefix));
  return result.data;
}

/**
 * How a body schema's failures and unsafe spots are named. A union names its failures poorly
 * ("invalid input"), so bodies that are unions say themselves which branch a body meant.
 */
export interface BodyContract {
  /** the `source` of a path of the raw body */
  name(path: JsonPath): string;
  /** the errors of a raw body the schema refused; without it, zod's own issues name them */
  explain?(raw: unknown): ErrorEntry[];
}

const contracts = new WeakMap<z.ZodType, BodyContract>();

export function describeBody(schema: z.ZodType, contract: BodyContract): void {
  contracts.set(schema, contract);
}

const plainContract: BodyContract = { name: (path) => pathName('', path) || 'body' };

/** The contract of a body schema: its own, or plain zod naming from the body's root. */
export function bodyContract(schema: z.ZodType): BodyContract {
  return contracts.get(schema) ?? plainContract;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The record of a body that arrives wrapped (`{"company": {...}}`, what stands beside it
 * ignored) or bare (`{...}`).
 */
export function unwrapRecord(body: unknown, wrapper: string): Record<string, unknown> {
  if (!isObject(body))
    throw ApiError.invalid('body', `expected a JSON object, bare or wrapped as {"${wrapper}": {...}}`);
  if (!(wrapper in body)) return body;
  const record = body[wrapper];
  if (!isObject(record)) throw ApiError.invalid(wrapper, 'expected an object');
  return record;
}

/**
 * The properties of a wrapped body that stand beside the wrapper and belong to the request, not
 * the record (a bulk update's `filter_args`), moved into the record, where the bare form has them.
 */
function liftBeside(raw: unknown, wrapper: string, names: readonly string[]): unknown {
  if (!isObject(raw) || !isObject(raw[wrapper]) || !names.some((name) => name in raw)) return raw;
  const { [wrapper]: record, ...rest } = raw;
  const moved = Object.fromEntries(names.filter((name) => name in rest).map((name) => [name, rest[name]]));
  const left = Object.fromEntries(Object.entries(rest).filter(([name]) => !names.includes(name)));
  return { ...left, [wrapper]: { ...(record as Record<string, unknown>), ...moved } };
}

/**
 * The entries of `included.<name>` for each of `names`, added to the record's own `<name>`: the
 * platform's clients send the related records they write (a customer's contacts) under `included`.
 */
function liftIncluded(raw: unknown, wrapper: string, names: readonly string[]): unknown {
  if (!isObject(raw) || !isObject(raw.included)) return raw;
  const included = raw.included;
  const lifted = names.filter((name) => Array.isArray(included[name]));
  if (lifted.length === 0) return raw;
  const wrapped = isObject(raw[wrapper]);
  const record = { ...((wrapped ? raw[wrapper] : raw) as Record<string, unknown>) };
  for (const name of lifted)
    record[name] = [...(Array.isArray(record[name]) ? record[name] : []), ...(included[name] as unknown[])];
  return wrapped ? { ...raw, [wrapper]: record } : record;
}

/**
 * A record body: `{"<wrapper>": {...}}` (with `included` and `meta` beside it, ignored) or the
 * bare record. The document shows both forms; the handler gets the record either way, and a
 * refusal or an ignored property names the property as `<wrapper>.<property>` whichever form was
 * sent (what stands beside the wrapper by its own name). Which form a body is, is decided by
 * the wrapper's name alone, never by which form would validate: a wrapped record with a wrong
 * value is a 400, not a bare record whose unknown property `<wrapper>` is ignored.
 */
export function recordBody<T extends z.ZodType>(
  wrapper: string,
  record: T,
  liftedFromIncluded: readonly string[] = [],
  besideWrapper: readonly string[] = [],
) {
  const object = record instanceof z.ZodPipe ? record.in : record;
  // a record with a property of the wrapper's name (a thread entry's `message`) holding no object is bare
  const ownsWrapperName = object instanceof z.ZodObject && wrapper in object.shape;
  const sentWrapped = (raw: unknown) => isObject(raw) && wrapper in raw && (!ownsWrapperName || isObject(raw[wrapper]));
  const wrapped = z
    .looseObject({
      [wrapper]: record,
      included: z.unknown().optional().meta({ description: 'ignored' }),
      meta: z.unknown().optional().meta({ description: 'ignored' }),
    })
    .transform((body) => {
      const beside = Object.keys(body).filter((key) => key !== wrapper && key !== 'included' && key !== 'meta');
      const inner = body[wrapper] as z.output<T>;
      return noteIgnored(inner, [
        ...beside.map((key) => [key]),
        ...ignoredPaths(inner).map((path) => [wrapper, ...path]),
      ]);
    });
  const bare = z
    .preprocess(
      (raw, ctx) => {
        if (sentWrapped(raw)) ctx.addIssue({ code: 'custom', message: `sent wrapped as {"${wrapper}": {...}}` });
        return raw;
      },
      record as z.ZodType<z.output<T>, z.input<T>>,
    )
    .transform((inner) =>
      noteIgnored(
        inner,
        ignoredPaths(inner).map((path) => [wrapper, ...path]),
      ),
    );
  const union = z.union([wrapped, bare]);
  const lift = (raw: unknown) => liftBeside(liftIncluded(raw, wrapper, liftedFromIncluded), wrapper, besideWrapper);
  const schema = liftedFromIncluded.length || besideWrapper.length ? z.preprocess(lift, union) : union;
  describeBody(schema, {
    name(path) {
      const inner = path[0] === wrapper && typeof path[1] !== 'number' ? path.slice(1) : path;
      return pathName(wrapper, inner);
    },
    explain(raw) {
      const lifted = lift(raw);
      const result = record.safeParse(
        sentWrapped(lifted) || !ownsWrapperName ? unwrapRecord(lifted, wrapper) : lifted,
        { reportInput: true },
      );
      return result.success
        ? [
            {
              code: 'invalid',
              source: 'body',
              detail: `expected a ${wrapper}, bare or wrapped as {"${wrapper}": {...}}`,
            },
          ]
        : issuesToErrors(result.error.issues, wrapper);
    },
  });
  return schema;
}
