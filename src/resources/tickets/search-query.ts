import { and, eq, gte, inArray, isNull, lte, notInArray, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Actor } from '../../auth/principal';
import { tickets } from '../../db/schema';
import { containsPattern, intList } from '../../db/sql-values';
import { selectionFromFilter } from '../../engine';
import { ApiError } from '../../http/errors';
import { MAX_ID } from '../../http/params';
import { isCalendarDay, isInstant } from '../../lib/time-values';
import {
  customFieldsParam,
  parseCustomFieldCriteria,
  type CustomFieldCriterion,
} from '../customfields/ticket-value-filter';
import { archivedCondition, archivedParam, type ArchivedValue } from './archived';
import { SEARCH_CONFIG } from './ticket-search';
import { ticketsResource } from './tickets.resource';

/** Id lists: repeated (`statuses=1&statuses=5`), with brackets (`statuses[]=1`, as some encoders send), or comma-joined. */
export const ID_LISTS = [
  'statuses',
  'priorities',
  'types',
  'sources',
  'inboxes',
  'excludeInboxes',
  'tags',
  'excludeTags',
  'agents',
  'customers',
  'companies',
  'rating',
] as const;
export const FLAGS = [
  'tagRequireAll',
  'onlyUntagged',
  'unassigned',
  'onlyWithAttachment',
  'omitMerged',
  'exact',
  'includeArchivedAgents',
  'excludeWorkEmails',
] as const;
/** The platform client's parameters for its project-management integration: this helpdesk has none, so only their empty values pass. */
const INTEGRATION_LISTS = ['taskStatuses', 'teams', 'helpdocSites', 'twCompanyIds'] as const;
const MAX_LIST = 500;
export const MAX_SEARCH_PAGE_SIZE = 200;

type IdList = (typeof ID_LISTS)[number];
type Flag = (typeof FLAGS)[number];

const raw = z.union([z.string(), z.array(z.string())]).optional();
const listParam = (description: string) =>
  raw.meta({ description: `${description}; repeat it, or send \`name[]\`, or join with commas` });

/** The query's shape as the document shows it: every name accepted, each list in both forms. */
export const searchQuerySchema = z.strictObject({
  search: z.string().max(1000).optional().meta({
    description:
      "words to find in the subject, the thread (notes included) and the customer's name or email; quotes for a phrase, `-word` to leave out, `or` between alternatives",
  }),
  ...Object.fromEntries(
    ID_LISTS.flatMap((name) => [
      [name, listParam(`ids of ${name}`)],
      [`${name}[]`, raw.meta({ description: `\`${name}\` as bracketed encoders send it` })],
    ]),
  ),
  ...Object.fromEntries(FLAGS.map((name) => [name, z.enum(['true', 'false', '1', '0', '']).optional()])),
  subjectKeywords: listParam('words that must each appear in the subject'),
  'subjectKeywords[]': raw,
  startDate: z
    .string()
    .optional()
    .meta({ description: 'created on or after this day (YYYY-MM-DD, UTC) or instant (RFC 3339)' }),
  endDate: z.string().optional().meta({ description: 'created on or before this day (the whole day) or instant' }),
  updatedAtFrom: z.string().optional().meta({ description: 'updated at or after (RFC 3339)' }),
  updatedAtTo: z.string().optional().meta({ description: 'updated at or before (RFC 3339)' }),
  lastUpdated: z.string().optional().meta({ description: "the platform client's name for `updatedAtFrom`" }),
  customfields: customFieldsParam,
  archived: archivedParam,
  filter: z.string().optional().meta({
    description: "a JSON filter over the ticket list's names, ANDed with the rest",
    example: '{"subject": {"$contains": "refund"}}',
  }),
  ticket: z.string().optional().meta({ description: 'one ticket id' }),
  page: z.string().optional(),
  pageSize: z
    .string()
    .optional()
    .meta({ description: `1 to ${MAX_SEARCH_PAGE_SIZE}, default 50` }),
  ...Object.fromEntries(
    INTEGRATION_LISTS.flatMap((name) => [
      [name, raw],
      [`${name}[]`, raw],
    ]),
  ),
  task: z.string().optional(),
  project: z.string().optional(),
  timeRange: z.string().optional(),
});

type RawQuery = Record<string, string | string[] | undefined>;

/** What a search asks for, read and checked. */
export interface SearchCriteria {
  words?: string;
  lists: Partial<Record<IdList, number[]>>;
  flags: Record<Flag, boolean>;
  subjectKeywords: string[];
  createdFrom?: string;
  createdTo?: string;
  updatedFrom?: string;
  updatedTo?: string;
  ticket?: number;
  filter?: string;
  customfields?: CustomFieldCriterion[];
  archived?: ArchivedValue;
  page: number;
  pageSize: number;
}

/** Text Postgres can hold: NUL would fail the statement instead of matching nothing. */
function text(name: string, value: string): string {
  if (value.includes('\0')) throw ApiError.invalid(name, 'must not contain NUL characters');
  return value.trim();
}

const values = (query: RawQuery, name: string): string[] =>
  [query[name], query[`${name}[]`]]
    .flatMap((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]))
    .flatMap((v) => v.split(','))
    .map((v) => text(name, v))
    .filter((v) => v !== '');

const isId = (value: string) => /^[1-9]\d{0,9}$/.test(value) && Number(value) <= MAX_ID;

/** One id, given once: `ticket`. */
function oneId(query: RawQuery, name: string): number | undefined {
  const value = single(query, name);
  if (value === undefined) return undefined;
  if (!isId(value)) throw ApiError.invalid(name, `"${value}" is not an id`);
  return Number(value);
}

function idList(query: RawQuery, name: string): number[] | undefined {
  const items = values(query, name);
  if (items.length === 0) return undefined;
  if (items.length > MAX_LIST) throw ApiError.invalid(name, `at most ${MAX_LIST} ids`);
  const bad = items.find((item) => !isId(item));
  if (bad !== undefined) throw ApiError.invalid(name, `"${bad}" is not an id`);
  return [...new Set(items.map(Number))];
}

const single = (query: RawQuery, name: string): string | undefined => {
  const value = query[name];
  if (Array.isArray(value)) throw ApiError.invalid(name, 'give it once');
  const kept = value === undefined ? '' : text(name, value);
  return kept === '' ? undefined : kept;
};

/** A time bound: an RFC 3339 instant, or (where days are allowed) a UTC day, the start or the end of it. */
function bound(query: RawQuery, name: string, days: 'start' | 'end' | false): string | undefined {
  const value = single(query, name);
  if (value === undefined) return undefined;
  if (isInstant(value)) return value;
  if (days && isCalendarDay(value)) {
    return days === 'start'
      ? `${value}T00:00:00Z`
      : new Date(Date.parse(`${value}T00:00:00Z`) + 86_400_000 - 1).toISOString();
  }
  throw ApiError.invalid(name, days ? 'must be a day (YYYY-MM-DD) or an RFC 3339 time' : 'must be an RFC 3339 time');
}

function whole(query: RawQuery, name: string, max: number, fallback: number): number {
  const value = single(query, name);
  if (value === undefined) return fallback;
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= max)) throw ApiError.invalid(name, `must be a whole number from 1 to ${max}`);
  return n;
}

/** Reads a search's parameters and refuses what contradicts itself, naming it: the platform widens such searches silently. */
export function searchCriteria(query: RawQuery): SearchCriteria {
  const lists: SearchCriteria['lists'] = {};
  for (const name of ID_LISTS) {
    const ids = idList(query, name);
    if (ids) lists[name] = ids;
  }
  const flags = Object.fromEntries(
    FLAGS.map((name) => [name, ['true', '1'].includes(single(query, name) ?? '')]),
  ) as Record<Flag, boolean>;
  const words = single(query, 'search');
  const criteria: SearchCriteria = {
    words,
    lists,
    flags,
    subjectKeywords: values(query, 'subjectKeywords'),
    createdFrom: bound(query, 'startDate', 'start'),
    createdTo: bound(query, 'endDate', 'end'),
    updatedFrom: bound(query, 'updatedAtFrom', false) ?? bound(query, 'lastUpdated', false),
    updatedTo: bound(query, 'updatedAtTo', false),
    ticket: oneId(query, 'ticket'),
    filter: single(query, 'filter'),
    customfields: parseCustomFieldCriteria(single(query, 'customfields')),
    archived: single(query, 'archived') as SearchCriteria['archived'],
    page: whole(query, 'page', 1_000_000, 1),
    pageSize: whole(query, 'pageSize', MAX_SEARCH_PAGE_SIZE, 50),
  };
  refuseContradictions(query, criteria);
  refuseUnsupported(query, criteria);
  return criteria;
}

function refuseContradictions(query: RawQuery, c: SearchCriteria): void {
  const { lists, flags } = c;
  if (flags.unassigned && lists.agents)
    throw ApiError.invalid(
      'unassigned',
      'contradicts `agents`: a ticket with an agent is not unassigned (ask for one or the other)',
    );
  if (flags.onlyUntagged && (lists.tags || flags.tagRequireAll))
    throw ApiError.invalid('onlyUntagged', 'contradicts `tags`: an untagged ticket has none of them');
  if (flags.tagRequireAll && !lists.tags)
    throw ApiError.invalid('tagRequireAll', 'needs `tags`: the tags a ticket must all have');
  if (flags.exact && !c.words) throw ApiError.invalid('exact', 'needs `search`: the phrase to match exactly');
  const both = (a: IdList, b: IdList) => lists[a]?.find((id) => lists[b]?.includes(id));
  const inbox = both('inboxes', 'excludeInboxes');
  if (inbox !== undefined) throw ApiError.invalid('excludeInboxes', `inbox ${inbox} is both asked for and excluded`);
  const tag = both('tags', 'excludeTags');
  if (tag !== undefined) throw ApiError.invalid('excludeTags', `tag ${tag} is both asked for and excluded`);
  if (c.createdFrom && c.createdTo && Date.parse(c.createdFrom) > Date.parse(c.createdTo))
    throw ApiError.invalid('endDate', 'is before `startDate`');
  if (c.updatedFrom && c.updatedTo && Date.parse(c.updatedFrom) > Date.parse(c.updatedTo))
    throw ApiError.invalid('updatedAtTo', 'is before `updatedAtFrom`');
  if (single(query, 'updatedAtFrom') && single(query, 'lastUpdated'))
    throw ApiError.invalid('lastUpdated', 'names the same bound as `updatedAtFrom`: give one');
  if (c.words !== undefined && !/[\p{L}\p{N}]/u.test(c.words))
    throw ApiError.invalid('search', 'has no words to look for');
}

/** Parameters the platform's client sends for features this helpdesk has not got: their empty values pass, anything else is named. */
function refuseUnsupported(query: RawQuery, c: SearchCriteria): void {
  for (const name of INTEGRATION_LISTS)
    if (values(query, name).length > 0)
      throw ApiError.invalid(name, 'this helpdesk has no project-management integration to search by');
  for (const name of ['task', 'project'] as const) {
    const value = single(query, name);
    if (value !== undefined && value !== '0')
      throw ApiError.invalid(name, 'this helpdesk has no project-management integration to search by');
  }
  if (single(query, 'timeRange') !== undefined)
    throw ApiError.invalid('timeRange', 'use `startDate`/`endDate` or `updatedAtFrom`/`updatedAtTo`');
  if (c.flags.excludeWorkEmails)
    throw ApiError.invalid('excludeWorkEmails', 'not supported: filter customers by `customers` or `companies`');
}

const tagged = (condition: SQL) =>
  sql`EXISTS (SELECT 1 FROM ticket_tags tt WHERE tt.ticket_id = ${tickets.id} AND ${condition})`;

/** The words as a query: all of them (a phrase in quotes, `-word` left out, `or`), or for `exact` all of them before the phrase check. */
const wordsQuery = (c: SearchCriteria) =>
  c.flags.exact
    ? sql`plainto_tsquery(${SEARCH_CONFIG}, ${c.words})`
    : sql`websearch_to_tsquery(${SEARCH_CONFIG}, ${c.words})`;

/** `exact`: the phrase as written (any case) in the subject, a live entry, or the customer's name or email. */
function exactPhrase(phrase: string): SQL {
  const pattern = containsPattern(phrase);
  return sql`(${tickets.subject} ILIKE ${pattern}
    OR EXISTS (SELECT 1 FROM ticket_messages m WHERE m.ticket_id = ${tickets.id} AND m.state = 'active' AND NOT m.is_draft AND m.text_body ILIKE ${pattern})
    OR EXISTS (SELECT 1 FROM customers c WHERE c.id = ${tickets.customerId} AND concat_ws(' ', c.first_name, c.last_name, c.email) ILIKE ${pattern}))`;
}

/** Every condition the criteria name, ANDed. */
function conditions(c: SearchCriteria, who: Actor): SQL[] {
  const { lists, flags } = c;
  const where: (SQL | undefined)[] = [];
  const column = {
    statuses: tickets.statusId,
    priorities: tickets.priorityId,
    types: tickets.typeId,
    sources: tickets.sourceId,
    inboxes: tickets.inboxId,
    agents: tickets.agentId,
    customers: tickets.customerId,
  } as const;
  for (const [name, col] of Object.entries(column)) {
    const ids = lists[name as keyof typeof column];
    if (ids) where.push(inArray(col, ids));
  }
  if (lists.excludeInboxes) where.push(notInArray(tickets.inboxId, lists.excludeInboxes));
  if (lists.companies)
    where.push(
      sql`EXISTS (SELECT 1 FROM company_customers cc WHERE cc.customer_id = ${tickets.customerId} AND cc.company_id IN ${intList(lists.companies)})`,
    );
  if (lists.tags) {
    where.push(
      flags.tagRequireAll
        ? sql`(SELECT count(*) FROM ticket_tags tt WHERE tt.ticket_id = ${tickets.id} AND tt.tag_id IN ${intList(lists.tags)}) = ${lists.tags.length}`
        : tagged(sql`tt.tag_id IN ${intList(lists.tags)}`),
    );
  }
  if (lists.rating)
    where.push(
      sql`EXISTS (SELECT 1 FROM happiness_ratings hr WHERE hr.ticket_id = ${tickets.id} AND hr.state = 'active' AND hr.option_id IN ${intList(lists.rating)})`,
    );
  if (lists.excludeTags) where.push(sql`NOT ${tagged(sql`tt.tag_id IN ${intList(lists.excludeTags)}`)}`);
  if (flags.onlyUntagged) where.push(sql`NOT ${tagged(sql`true`)}`);
  if (flags.unassigned) where.push(isNull(tickets.agentId));
  if (flags.omitMerged) where.push(isNull(tickets.mergedIntoId));
  if (flags.onlyWithAttachment) {
    where.push(
      sql`EXISTS (SELECT 1 FROM ticket_messages m JOIN ticket_message_files f ON f.message_id = m.id WHERE m.ticket_id = ${tickets.id} AND m.state = 'active')`,
    );
  }
  if (c.createdFrom) where.push(gte(tickets.createdAt, sql`${c.createdFrom}::timestamptz`));
  if (c.createdTo) where.push(lte(tickets.createdAt, sql`${c.createdTo}::timestamptz`));
  if (c.updatedFrom) where.push(gte(tickets.updatedAt, sql`${c.updatedFrom}::timestamptz`));
  if (c.updatedTo) where.push(lte(tickets.updatedAt, sql`${c.updatedTo}::timestamptz`));
  for (const keyword of c.subjectKeywords) where.push(sql`${tickets.subject} ILIKE ${containsPattern(keyword)}`);
  if (c.ticket !== undefined) where.push(eq(tickets.id, c.ticket));
  if (c.words) {
    where.push(sql`${tickets.searchVector} @@ ${wordsQuery(c)}`);
    if (c.flags.exact) where.push(exactPhrase(c.words));
  }
  if (c.filter) where.push(selectionFromFilter(c.filter, ticketsResource, who).where);
  where.push(archivedCondition(c.archived));
  return where.filter((w): w is SQL => w !== undefined);
}

/**
 * What a search selects and in which order: the page statement's inputs (the benchmark renders the
 * same). `fieldValues` is the criteria's `customfields` as a condition (`customFieldsCondition`).
 */
export function searchSelection(criteria: SearchCriteria, who: Actor, fieldValues?: SQL) {
  const order = criteria.words
    ? { expr: sql`ts_rank(${tickets.searchVector}, ${wordsQuery(criteria)})`, descending: true }
    : { expr: tickets.updatedAt, descending: true };
  return {
    where: and(...conditions(criteria, who), fieldValues),
    page: { limit: criteria.pageSize, offset: (criteria.page - 1) * criteria.pageSize, order },
  };
}
