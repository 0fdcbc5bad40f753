import type { Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../app-env';
import { addRoute } from '../../http/route';
import { errorBodySchema } from '../../openapi/schemas';
import type { QueryParameterDoc, ResponseDoc } from '../../openapi/registry';
import { bulkDeleteHandler, bulkUpdateHandler } from './bulk';
import { compiled } from './compiled';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './list-params';
import { getHandler, listHandler } from './read';
import type { Operation, ResourceDeclaration } from './resource';
import { createHandler, deleteHandler, updateHandler } from './write';

const ALL_OPERATIONS: readonly Operation[] = ['list', 'get', 'create', 'update', 'delete', 'bulkUpdate', 'bulkDelete'];

export const bulkResultSchema = z
  .object({ affected: z.number().int(), ids: z.array(z.number().int()), jobId: z.number().int().nullable() })
  .meta({ id: 'BulkOpResponse' });

const errors = (...statuses: number[]): Record<number, ResponseDoc> =>
  Object.fromEntries(statuses.map((status) => [status, { description: 'error', schema: errorBodySchema }]));

function queryDocs(resource: ResourceDeclaration, list: boolean): QueryParameterDoc[] {
  const c = compiled(resource);
  const includes: QueryParameterDoc = {
    name: 'includes',
    description: `comma list of: ${[...c.includeNames, 'all'].join(', ')}`,
    schema: { type: 'string' },
  };
  if (!list) return c.includeNames.length ? [includes] : [];
  return [
    { name: 'filter', description: `JSON filter over: ${resource.filter.join(', ')}`, schema: { type: 'string' } },
    { name: 'orderBy', description: 'one of the names', schema: { type: 'string', enum: [...resource.filter, ...Object.keys(resource.orderByExtra ?? {})] } },
    { name: 'orderMode', description: 'sort direction', schema: { type: 'string', enum: ['asc', 'desc'], default: 'asc' } },
    { name: 'page', description: 'page number from 1', schema: { type: 'integer', minimum: 1, default: 1 } },
    { name: 'pageSize', description: 'records a page', schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE } },
    ...(c.includeNames.length ? [includes] : []),
  ];
}

/**
 * Turns a declaration into its routes: list, get, create, patch (and PUT), delete, bulk update
 * and bulk delete, each documented in the OpenAPI registry. Routes of a resource's special
 * operations must be added before this, so that `update.json` wins over `{id}.json`.
 */
export function resourceRoutes(app: Hono<AppEnv>, resource: ResourceDeclaration): void {
  const { type, singular } = resource;
  const ops = new Set(resource.operations ?? ALL_OPERATIONS);
  const s = compiled(resource).schemas;
  const base = `/v2/${type}`;
  const one = z.object({ [singular]: s.record, included: z.record(z.string(), z.array(z.unknown())) });
  const many = z.object({ [type]: z.array(s.record), included: z.record(z.string(), z.array(z.unknown())), meta: z.object({ page: z.unknown() }) });
  const tag = type;

  if (ops.has('bulkUpdate')) {
    addRoute(app, {
      method: 'patch', path: `${base}/update.json`, tag, summary: `Update every ${singular} the filter selects`,
      query: queryDocs(resource, true).slice(0, 1),
      body: { schema: s.bulkPatch, required: true },
      responses: { 200: { description: 'bulk result', schema: bulkResultSchema }, ...errors(400, 401, 403, 409) },
    }, bulkUpdateHandler(resource));
  }
  if (ops.has('bulkDelete')) {
    addRoute(app, {
      method: 'delete', path: `${base}/delete.json`, tag, summary: `Delete every ${singular} the filter selects`,
      query: queryDocs(resource, true).slice(0, 1),
      responses: { 200: { description: 'bulk result', schema: bulkResultSchema }, ...errors(400, 401, 403) },
    }, bulkDeleteHandler(resource));
  }
  if (ops.has('list')) {
    addRoute(app, {
      method: 'get', path: `${base}.json`, tag, summary: `List ${type}`, query: queryDocs(resource, true),
      responses: { 200: { description: 'a page', schema: many }, ...errors(400, 401, 403) },
    }, listHandler(resource));
  }
  if (ops.has('create')) {
    addRoute(app, {
      method: 'post', path: `${base}.json`, tag, summary: `Create a ${singular}`, query: queryDocs(resource, false),
      body: { schema: s.create, required: true },
      responses: { 201: { description: 'created', schema: one }, ...errors(400, 401, 403, 409, 413, 415) },
    }, createHandler(resource));
  }
  if (ops.has('get')) {
    addRoute(app, {
      method: 'get', path: `${base}/{id}.json`, tag, summary: `Get a ${singular}`, query: queryDocs(resource, false),
      responses: { 200: { description: 'the record', schema: one }, ...errors(400, 401, 403, 404) },
    }, getHandler(resource));
  }
  if (ops.has('update')) {
    for (const method of ['patch', 'put'] as const) {
      addRoute(app, {
        method, path: `${base}/{id}.json`, tag,
        summary: method === 'patch' ? `Update a ${singular}` : `Update a ${singular} (PUT, with PATCH's meaning)`,
        query: queryDocs(resource, false),
        body: { schema: s.patch, required: true },
        responses: { 200: { description: 'the record', schema: one }, ...errors(400, 401, 403, 404, 409, 413, 415) },
      }, updateHandler(resource));
    }
  }
  if (ops.has('delete')) {
    addRoute(app, {
      method: 'delete', path: `${base}/{id}.json`, tag, summary: `Delete a ${singular}`,
      responses: { 204: { description: 'deleted' }, ...errors(400, 401, 403, 404) },
    }, deleteHandler(resource));
  }
}
