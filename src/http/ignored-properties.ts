import { pathName, type JsonPath } from './json-body';

/**
 * The platform ignores body properties it does not use, and its clients rely on it (they send
 * back what they read and what their UI holds): a body object (`bodyObject`, record-body.ts)
 * drops a property it does not know and notes where it sat, and the answer names each in
 * `X-Ignored-Properties`, so that a typo stays visible.
 */
export const IGNORED_PROPERTIES_HEADER = 'X-Ignored-Properties';

/** The properties each body object ignored, by the value it gave: paths relative to that value. */
const ignoredIn = new WeakMap<object, readonly JsonPath[]>();

const isPlainObject = (value: object): boolean => {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
};

/** Notes the properties ignored within `value` (paths relative to it), and answers it. */
export function noteIgnored<T>(value: T, paths: readonly JsonPath[]): T {
  if (value !== null && typeof value === 'object') ignoredIn.set(value, paths);
  return value;
}

/**
 * Where a validated value (a body, or a value within one) had properties ignored: each body
 * object's own, found down the arrays and plain objects that hold them.
 */
export function ignoredPaths(value: unknown): JsonPath[] {
  if (value === null || typeof value !== 'object') return [];
  const own = ignoredIn.get(value);
  if (own) return [...own];
  if (Array.isArray(value))
    return value.flatMap((item: unknown, index) => ignoredPaths(item).map((path) => [index, ...path]));
  if (!isPlainObject(value)) return [];
  return Object.entries(value).flatMap(([key, item]) => ignoredPaths(item).map((path) => [key, ...path]));
}

/** At most this many characters of names: a body of thousands of unknown properties makes no header a proxy refuses. */
const MAX_HEADER_LENGTH = 2_000;

const bytes = new TextEncoder();

/** A name as a header carries it: visible ASCII, with `%`, `,` and anything else percent-encoded (UTF-8). */
function headerSafe(name: string): string {
  return name.replace(/[^\x21-\x7e]|[%,]/gu, (character) =>
    [...bytes.encode(character)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

/**
 * The header's value for the ignored paths of a body: each named as errors name it
 * (`customer.isReady`, `company.domains[0].colour`), comma-separated; undefined when none. Past
 * `MAX_HEADER_LENGTH` the list ends with `...`.
 */
export function ignoredHeaderValue(paths: readonly JsonPath[]): string | undefined {
  if (paths.length === 0) return undefined;
  const names = [...new Set(paths.map((path) => headerSafe(pathName('', path))))];
  let value = '';
  for (const name of names) {
    const next = value ? `${value}, ${name}` : name;
    if (next.length > MAX_HEADER_LENGTH) return value ? `${value}, ...` : '...';
    value = next;
  }
  return value;
}

/** How the document declares the header, on every answer of an operation that takes a JSON body. */
export const IGNORED_PROPERTIES_HEADER_OBJECT = {
  description:
    'the body properties this operation does not know, accepted and ignored (nothing of them is stored), each named as an error would name it (`customer.isReady, company.domains[0].colour`), comma-separated; absent when none was ignored',
  required: false,
  schema: { type: 'string' },
} as const;
