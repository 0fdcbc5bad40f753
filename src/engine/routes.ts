import { idParams } from '../http/params';
import { inWords, withArticle } from '../lib/words';
import { errorResponse, jsonResponse } from '../http/responses';
import { defineRoute, type ApiRoute } from '../http/route';
import { bulkDeleteHandler, bulkResultSchema, bulkUpdateHandler } from './bulk';
import { filterExample } from './fields';
import { input, type IdParam } from './input';
import { listBody, readOne } from './read';
import { schemasOf, type ListQuery, type OneQuery } from './schemas';
import type { Operation, ResourceDeclaration } from './types';
import { holdsSharedRows } from './scope';
import { createHandler, deleteHandler, updateHandler } from './write';

const ALL_OPERATIONS: readonly Operation[] = ['list', 'get', 'create', 'update', 'delete', 'bulkUpdate', 'bulkDelete'];

/**
 * Turns a declaration into its routes: list, get, create, patch (and PUT with PATCH's meaning),
 * delete, bulk update and bulk delete, each one declaration: the schemas that validate it are
 * the ones its OpenAPI operation shows. `{id}` matches digits only, so the order of these and
 * a resource's special routes (`update.json`, `clear.json`) does not matter.
 */
export function resourceRoutes(resource: ResourceDeclaration): ApiRoute[] {
  const { type, title, access, examples } = resource;
  const ops = new Set(resource.operations ?? ALL_OPERATIONS);
  const s = schemasOf(resource);
  const base = `/v2/${resource.path ?? type}`;
  const tag = title.group ?? title.many;
  const one = withArticle(inWords(title.one));
  const every = `every ${inWords(title.one)}`;
  const many = inWords(title.many);
  const routes: ApiRoute[] = [];
  const json = { required: true, content: { 'application/json': { schema: s.patchBody } } } as const;

  if (ops.has('list')) {
    routes.push(
      defineRoute(
        {
          method: 'get',
          path: `${base}.json`,
          tag,
          operationId: `list${title.many}`,
          roles: access.read,
          summary: `List ${many}`,
          description: `A page of the ${many} the \`filter\` selects, sorted by \`orderBy\` (ties by id), with the records \`includes\` names in \`included\`. Every page carries the count of all matches in \`meta.page\` and \`pagination\`. Deleted records are left out unless the filter names \`state\`.`,
          request: { query: s.listQuery },
          responses: { 200: jsonResponse('a page', s.many) },
        },
        async (c) => c.json(await listBody(c, resource, c.var.principal, input<ListQuery>(c, 'query')), 200),
      ),
    );
  }
  if (ops.has('get')) {
    routes.push(
      defineRoute(
        {
          method: 'get',
          path: `${base}/{id}.json`,
          tag,
          operationId: `get${title.one}`,
          roles: access.read,
          summary: `Get ${one}`,
          description: `One of the installation's ${many} by its id, with the records \`includes\` names in \`included\`; \`fields\` narrows the properties answered. A deleted record, or one of another installation, is 404.`,
          request: { params: idParams, query: s.oneQuery },
          responses: { 200: jsonResponse('the record', s.one) },
        },
        async (c) => {
          const { includes, fields } = input<OneQuery>(c, 'query');
          return c.json(await readOne(c, resource, input<IdParam>(c, 'param').id, includes, fields), 200);
        },
      ),
    );
  }
  if (ops.has('create')) {
    routes.push(
      defineRoute(
        {
          method: 'post',
          path: `${base}.json`,
          tag,
          operationId: `create${title.one}`,
          roles: access.write,
          summary: `Create ${one}`,
          description: `Creates ${one} from the body, sent wrapped (\`{"${resource.singular}": {...}}\`) or bare; answers 201 with the record. A reference is \`{"id": N}\` to a record of the installation; a property the record does not take is ignored and named in \`X-Ignored-Properties\`. A failed rule answers 400 or 409 naming the property, and writes nothing.`,
          request: {
            query: s.writeQuery,
            body: { required: true, content: { 'application/json': { schema: s.createBody } } },
          },
          ...(examples?.create ? { example: { body: { [resource.singular]: examples.create } } } : {}),
          responses: { 201: jsonResponse('created', s.one), 409: errorResponse('conflicts with an existing record') },
        },
        createHandler(resource),
      ),
    );
  }
  if (ops.has('update')) {
    for (const method of ['patch', 'put'] as const) {
      routes.push(
        defineRoute(
          {
            method,
            path: `${base}/{id}.json`,
            tag,
            operationId: `${method === 'patch' ? 'update' : 'replace'}${title.one}`,
            roles: access.write,
            summary: method === 'patch' ? `Update ${one}` : `Update ${one} (PUT, with PATCH's meaning)`,
            description: `Changes exactly the properties sent, each under the rules of a create; the others keep their values. Answers the record as it now is; a change records its event in the same transaction.`,
            request: { params: idParams, query: s.writeQuery, body: json },
            ...(examples?.update ? { example: { body: { [resource.singular]: examples.update } } } : {}),
            responses: {
              200: jsonResponse('the record', s.one),
              409: errorResponse('conflicts with an existing record'),
            },
          },
          updateHandler(resource),
        ),
      );
    }
  }
  if (ops.has('delete')) {
    routes.push(
      defineRoute(
        {
          method: 'delete',
          path: `${base}/{id}.json`,
          tag,
          operationId: `delete${title.one}`,
          roles: access.write,
          summary: `Delete ${one}`,
          description:
            'A soft delete: the record then reads as 404 and leaves lists, unless a filter asks for `state`.',
          request: s.deleteQuery ? { params: idParams, query: s.deleteQuery } : { params: idParams },
          // one in use moves its users to another: the reader's second record, to the first
          ...(resource.usedBy?.length ? { example: { params: { id: 12 }, query: { replaceWith: '11' } } } : {}),
          responses: {
            204: { description: 'deleted' },
            ...(s.deleteQuery || resource.beforeDelete || holdsSharedRows(resource.table)
              ? { 409: errorResponse('not to be deleted, or in use and no `replaceWith` named') }
              : {}),
          },
        },
        deleteHandler(resource),
      ),
    );
  }
  if (ops.has('bulkUpdate')) {
    routes.push(
      defineRoute(
        {
          method: 'patch',
          path: `${base}/update.json`,
          tag,
          operationId: `update${title.many}`,
          roles: access.write,
          summary: `Update ${every} the filter selects`,
          description:
            'The filter is the query `filter` or the body `filter_args.filter`; `filter_args.bulkDryExecute` answers what would change and changes nothing.',
          request: {
            query: s.bulkUpdateQuery,
            body: { required: true, content: { 'application/json': { schema: s.bulkPatchBody } } },
          },
          ...(examples?.update
            ? {
                example: {
                  query: bulkFilter(resource),
                  body: { [resource.singular]: inBulk(resource, examples.update) },
                },
              }
            : {}),
          responses: {
            200: jsonResponse('the bulk result', bulkResultSchema),
            409: errorResponse('conflicts with an existing record'),
          },
        },
        bulkUpdateHandler(resource),
      ),
    );
  }
  if (ops.has('bulkDelete')) {
    // A record in use is deleted only with `replaceWith`, which names one record's successor.
    if (resource.usedBy?.length) throw new Error(`${type}: records others use have no bulk delete`);
    routes.push(
      defineRoute(
        {
          method: 'delete',
          path: `${base}/delete.json`,
          tag,
          operationId: `delete${title.many}`,
          roles: access.write,
          summary: `Delete ${every} the filter selects`,
          description: `A soft delete of every record the required \`filter\` selects, under the rules of a single delete: one that may not be deleted refuses the whole request, and nothing is deleted. Answers how many and their ids.`,
          request: { query: s.bulkQuery },
          responses: {
            200: jsonResponse('the bulk result', bulkResultSchema),
            ...(resource.beforeDelete ? { 409: errorResponse('a selected record is not to be deleted: none is') } : {}),
          },
        },
        bulkDeleteHandler(resource),
      ),
    );
  }
  return routes;
}

/** An update's example as a bulk update may send it: without the properties only one record may have. */
function inBulk(resource: ResourceDeclaration, update: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(update).filter(([name]) => !resource.fields[name]?.notInBulk && !resource.fields[name]?.writeOnly),
  );
}

/** The filter a bulk update's example selects with: the list's own example filter. */
function bulkFilter(resource: ResourceDeclaration): Record<string, string> {
  const filter = filterExample(resource);
  return filter ? { filter } : {};
}
