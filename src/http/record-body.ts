import { z } from 'zod';
import { ApiError, type ErrorEntry } from './errors';
import { pathName, type JsonPath } from './json-body';

/** Audit properties a client may send back (even as 0 or null): accepted and ignored. */
export const AUDIT_PROPERTIES = ['state', 'createdAt', 'createdBy', 'updatedAt', 'updatedBy', 'deletedAt', 'deletedBy'] as const;

/**
 * What a client reads back about a whole record and may send back in it: ignored on create and
 * update (`included` and `meta` may sit inside a bare body an SDK sends back).
 */
export const RECORD_ENVELOPE = ['id', 'type', 'included', 'meta'] as const;

const readOnly = z.unknown().optional().meta({ readOnly: true, description: 'read-only: accepted and ignored' });

/**
 * A record as a client writes it: the writable properties, strictly (anything else is a 400
 * naming it), and the read-only ones a client read and may send back (the audit set, `id`,
 * `type`, `included`, `meta`, and `alsoReadOnly`), accepted and dropped.
 */
export function writableRecord<S extends z.ZodRawShape>(shape: S, alsoReadOnly: readonly string[] = []) {
  const ignored = [...new Set([...RECORD_ENVELOPE, ...AUDIT_PROPERTIES, ...alsoReadOnly])].filter((name) => !(name in shape));
  const accepted = Object.fromEntries(ignored.map((name) => [name, readOnly]));
  return z.strictObject({ ...shape, ...accepted }).transform((record) => {
    const kept: Record<string, unknown> = { ...record };
    for (const name of ignored) delete kept[name];
    return kept as z.output<z.ZodObject<S>>;
  });
}

/** Zod's issues as entries of the error body, each naming the property at fault. */
export function issuesToErrors(issues: readonly z.core.$ZodIssue[], prefix: string): ErrorEntry[] {
  return issues.flatMap((issue): ErrorEntry[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ code: 'invalid', source: pathName(prefix, [...issue.path, key]), detail: 'unknown property' }));
    }
    const missing = issue.code === 'invalid_type' && issue.input === undefined;
    return [{ code: 'invalid', source: pathName(prefix, issue.path), detail: missing ? 'must be set' : issue.message }];
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

/**
 * The record of a body that arrives wrapped (`{"company": {...}}`, with `included` and `meta`
 * beside it ignored) or bare (`{...}`).
 */
export function unwrapRecord(body: unknown, wrapper: string): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw ApiError.invalid('body', `expected a JSON object, bare or wrapped as {"${wrapper}": {...}}`);
  }
  const object = body as Record<string, unknown>;
  if (!(wrapper in object)) return object;
  const unknown = Object.keys(object).filter((key) => key !== wrapper && key !== 'included' && key !== 'meta');
  if (unknown.length) throw ApiError.invalid(unknown[0]!, 'unknown property');
  const record = object[wrapper];
  if (record === null || typeof record !== 'object' || Array.isArray(record)) throw ApiError.invalid(wrapper, 'expected an object');
  return record as Record<string, unknown>;
}

/**
 * A record body: `{"<wrapper>": {...}}` (with `included` and `meta` beside it, ignored) or the
 * bare record. The document shows both forms; the handler gets the record either way, and a
 * refusal names the property as `<wrapper>.<property>` whichever form was sent.
 */
/**
 * The entries of `included.<name>` for each of `names`, added to the record's own `<name>`: the
 * platform's clients send the related records they write (a customer's contacts) under `included`.
 */
const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

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

function liftIncluded(raw: unknown, wrapper: string, names: readonly string[]): unknown {
  if (!isObject(raw) || !isObject(raw.included)) return raw;
  const included = raw.included;
  const lifted = names.filter((name) => Array.isArray(included[name]));
  if (lifted.length === 0) return raw;
  const wrapped = isObject(raw[wrapper]);
  const record = { ...((wrapped ? raw[wrapper] : raw) as Record<string, unknown>) };
  for (const name of lifted) record[name] = [...(Array.isArray(record[name]) ? record[name] : []), ...(included[name] as unknown[])];
  return wrapped ? { ...raw, [wrapper]: record } : record;
}

export function recordBody<T extends z.ZodType>(wrapper: string, record: T, liftedFromIncluded: readonly string[] = [], besideWrapper: readonly string[] = []) {
  const wrapped = z
    .strictObject({
      [wrapper]: record,
      included: z.unknown().optional().meta({ description: 'ignored' }),
      meta: z.unknown().optional().meta({ description: 'ignored' }),
    })
    .transform((body) => body[wrapper] as z.output<T>);
  const union = z.union([wrapped, record as z.ZodType<z.output<T>, z.input<T>>]);
  const object = record instanceof z.ZodPipe ? record.in : record;
  const ownsWrapperName = object instanceof z.ZodObject && wrapper in object.shape;
  const lift = (raw: unknown) => liftBeside(liftIncluded(raw, wrapper, liftedFromIncluded), wrapper, besideWrapper);
  const schema = liftedFromIncluded.length || besideWrapper.length ? z.preprocess(lift, union) : union;
  describeBody(schema, {
    name(path) {
      const inner = path[0] === wrapper && typeof path[1] !== 'number' ? path.slice(1) : path;
      return pathName(wrapper, inner);
    },
    explain(raw) {
      const lifted = lift(raw);
      // a record with a property of the wrapper's name (a thread entry's `message`) holding no object is bare
      const bare = ownsWrapperName && isObject(lifted) && !isObject(lifted[wrapper]);
      const result = record.safeParse(bare ? lifted : unwrapRecord(lifted, wrapper), { reportInput: true });
      return result.success ? [{ code: 'invalid', source: 'body', detail: `expected a ${wrapper}, bare or wrapped as {"${wrapper}": {...}}` }] : issuesToErrors(result.error.issues, wrapper);
    },
  });
  return schema;
}
