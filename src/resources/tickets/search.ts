import { and, eq, gte, inArray, isNull, lte, notInArray, sql, type SQL } from 'drizzle-orm';
import { containsPattern, intList } from '../../db/sql-values';
import { EVERYONE } from '../../auth/access';
import { tickets } from '../../db/schema';
import { includesParam, pageMetadata, schemasOf, selectionFromFilter, selectPage } from '../../engine';
import type { Actor } from '../../auth/principal';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { searchCriteria, searchQuerySchema, type SearchCriteria } from './search-query';
import { SEARCH_CONFIG } from './ticket-search';
import { ticketsResource } from './tickets.resource';
import { customFieldsCondition } from '../customfields/ticket-value-filter';
import { archivedCondition } from './archived';

const s = schemasOf(ticketsResource);

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

/**
 * `GET /v2/search/tickets.json`: tickets by words (Postgres full-text search over a GIN index,
 * ranked: subject before customer before thread) and by every facet the platform names. The
 * total is exact and every page is reachable; contradictions are a 400 naming the parameter.
 */
export const searchTicketsRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/search/tickets.json',
    tag: 'Tickets',
    operationId: 'searchTickets',
    roles: EVERYONE,
    summary: 'Search tickets by words and facets',
    description:
      'Lists are repeated parameters (`statuses=1&statuses=5`), bracketed (`statuses[]=1`) or comma-joined. Ranked by relevance when `search` is given, else most recently updated first.',
    request: {
      query: searchQuerySchema.extend({
        includes: includesParam(Object.keys(ticketsResource.relations), ticketsResource.includeAliases),
      }),
    },
    responses: { 200: jsonResponse('a page of matching tickets', s.many) },
  },
  async (c) => {
    const who = c.var.principal;
    const query = c.req.valid('query');
    const { includes, ...rest } = query;
    const criteria = searchCriteria(rest as Record<string, string | string[] | undefined>);
    const fieldValues = await customFieldsCondition(c.var.db.http, who.installationId, criteria.customfields);
    const { where, page: window } = searchSelection(criteria, who, fieldValues);
    const page = await selectPage(c.var.db.http, ticketsResource, { who, where, withDeleted: false, includes }, window);
    return c.json(
      { tickets: page.records, included: page.included, ...pageMetadata(criteria.page, criteria.pageSize, page.total) },
      200,
    );
  },
);
