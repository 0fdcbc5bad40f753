import { EVERYONE } from '../../auth/access';
import { includesParam, pageMetadata, schemasOf, selectPage } from '../../engine';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { customFieldsCondition } from '../customfields/ticket-value-filter';
import { searchCriteria, searchQuerySchema, searchSelection } from './search-query';
import { ticketsResource } from './tickets.resource';

const s = schemasOf(ticketsResource);

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
