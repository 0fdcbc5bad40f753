import { EVERYONE } from '../../auth/access';
import { readOne, schemasOf } from '../../engine';
import { jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { usersResource } from './users.resource';

const s = schemasOf(usersResource);

/** `GET /v2/me.json`: the caller's own user record, as `GET /v2/users/{id}.json` answers it. */
export const getMeRoute = defineRoute(
  {
    method: 'get',
    path: '/v2/me.json',
    tag: 'Users',
    operationId: 'getMe',
    roles: EVERYONE,
    summary: "The caller's own user record",
    description:
      'The user record of the teammate whose credential the request carries, as `GET /v2/users/{id}.json` answers it, with `includes` and `fields` as there. See docs/resources/users.md.',
    request: { query: s.oneQuery },
    responses: { 200: jsonResponse('the record', s.one) },
  },
  async (c) => {
    const { includes, fields } = c.req.valid('query');
    return c.json(await readOne(c, usersResource, c.var.principal.userId, includes, fields), 200);
  },
);
