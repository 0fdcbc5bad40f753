import { z } from 'zod';
import { bodyObject } from '../http/record-body';
import { filterExample } from './fields';
import type { ResourceDeclaration } from './types';

/**
 * The query parameters of lists and single records, as zod schemas: the routes validate with
 * them and the OpenAPI document describes them, so a bad value is a 400 naming the parameter.
 */

const MAX_PAGE_SIZE = 100;
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE = 1_000_000;

/** A whole number from 1 to `max`; out of range is a 400, never a silent clamp. */
function wholeNumber(max: number, fallback: number, description: string) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === '') return fallback;
      const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
      if (!(value >= 1 && value <= max)) {
        ctx.addIssue({ code: 'custom', message: `must be a whole number from 1 to ${max}` });
        return z.NEVER;
      }
      return value;
    })
    .meta({ type: 'integer', minimum: 1, maximum: max, default: fallback, description });
}

export const pageParam = wholeNumber(MAX_PAGE, 1, 'the page, from 1');
export const pageSizeParam = wholeNumber(MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE, `records a page, 1 to ${MAX_PAGE_SIZE}`);

/** A comma list of names, each one of `allowed`: unknown ones are a 400 naming them. */
function nameList(
  allowed: readonly string[],
  options: { all: boolean; what: string; aliases?: Record<string, string> },
) {
  const aliases = options.aliases ?? {};
  return (raw: string | undefined, ctx: z.core.$RefinementCtx<string | undefined>): string[] => {
    if (raw === undefined || raw.trim() === '') return [];
    const names = [
      ...new Set(
        raw
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean)
          .map((name) => aliases[name] ?? name),
      ),
    ];
    if (options.all && names.includes('all')) return [...allowed];
    const unknown = names.find((name) => !allowed.includes(name));
    if (unknown !== undefined) {
      const choices = [...allowed, ...(options.all ? ['all'] : [])].join(', ') || 'none';
      ctx.addIssue({ code: 'custom', message: `unknown ${options.what} "${unknown}"; allowed: ${choices}` });
      return z.NEVER;
    }
    return names;
  };
}

/** `includes`: a comma list of the relation names (or their aliases), or `all`. */
export function includesParam(allowed: readonly string[], aliases: Record<string, string> = {}) {
  const named = [...allowed, ...Object.keys(aliases)];
  return z
    .string()
    .optional()
    .transform(nameList(allowed, { all: true, what: 'include', aliases }))
    .meta({
      type: 'string',
      description: allowed.length
        ? `related records to include: a comma list of ${named.join(', ')}, or all`
        : 'nothing to include here; `all` is accepted',
      example: 'all',
    });
}

/** `fields`: a sparse field set, a comma list of the record's properties; `id` and `type` always come back. */
export function fieldsParam(allowed: readonly string[]) {
  return z
    .string()
    .optional()
    .transform(nameList(allowed, { all: false, what: 'field' }))
    .transform((names) => (names.length ? names : undefined))
    .meta({
      type: 'string',
      description: `only these properties of each record (and \`id\`, \`type\`): a comma list of ${allowed.join(', ')}`,
    });
}

/** `orderBy`: one allowed name. */
export function orderByParam(allowed: readonly string[]) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === '') return undefined;
      if (!allowed.includes(raw)) {
        ctx.addIssue({ code: 'custom', message: `unknown name "${raw}"; allowed: ${allowed.join(', ')}` });
        return z.NEVER;
      }
      return raw;
    })
    .meta({ type: 'string', enum: [...allowed], description: 'the property to sort by; ties break on id' });
}

/** `orderMode`: `asc` or `desc`, any case. */
export const orderModeParam = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    const mode = (raw || 'asc').toLowerCase();
    if (mode !== 'asc' && mode !== 'desc') {
      ctx.addIssue({ code: 'custom', message: 'must be asc or desc' });
      return z.NEVER;
    }
    return mode;
  })
  .meta({ type: 'string', enum: ['asc', 'desc'], default: 'asc', description: 'the sort direction' });

/** `filter`: JSON over the resource's allowed names, compiled for the caller (`filter.ts`); its example is one the resource accepts. */
export function filterParam(resource: ResourceDeclaration, required = false) {
  const names = resource.filter;
  const example = filterExample(resource);
  const described = {
    type: 'string',
    description: `a JSON filter${required ? ' (required)' : ''} over: ${names.join(', ')}; operators $eq $ne $lt $lte $gt $gte $in $nin $contains $and $or`,
    ...(example ? { example } : {}),
  } as const;
  return required ? z.string().meta(described) : z.string().optional().meta(described);
}

/**
 * A bulk update's `filter_args`, beside the changes in its body (the platform's form): the
 * filter, as a JSON string or an object, and `bulkDryExecute` for a dry run.
 */
export function filterArgsSchema(names: readonly string[]) {
  return bodyObject({
    filter: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .meta({ description: `the filter, as in the query: over ${names.join(', ')}` }),
    bulkDryExecute: z.boolean().optional().meta({ description: 'true: answer what would change, and change nothing' }),
  }).meta({
    description: 'the records to change and whether to change them; the query `filter` is the other way to name them',
  });
}

/** The page's metadata, as `meta.page`. */
export const pageMetaSchema = z
  .object({
    page: z.number().int(),
    pageSize: z.number().int(),
    pageOffset: z.number().int(),
    count: z.number().int().meta({ description: 'the records the filter matches, on every page' }),
    pages: z.number().int(),
    hasMore: z.boolean(),
  })
  .meta({ id: 'PageMeta' });

/** The page as the platform's client reads it: `pagination`. */
export const paginationSchema = z
  .object({
    records: z.number().int().meta({ description: 'the records the filter matches, on every page' }),
    pageSize: z.number().int(),
    pages: z.number().int(),
    page: z.number().int(),
    hasMorePages: z.boolean(),
  })
  .meta({ id: 'Pagination' });

/** Both forms of a page's metadata for a page of `pageSize` out of `count` records. */
export function pageMetadata(page: number, pageSize: number, count: number) {
  const pages = Math.ceil(count / pageSize);
  return {
    meta: { page: { page, pageSize, pageOffset: (page - 1) * pageSize, count, pages, hasMore: page < pages } },
    pagination: { records: count, pageSize, pages, page, hasMorePages: page < pages },
  };
}
