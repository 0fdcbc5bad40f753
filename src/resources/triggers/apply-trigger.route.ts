import { AGENTS } from '../../auth/access';
import { referenceInput, schemasOf } from '../../engine';
import { ApiError } from '../../http/errors';
import { idParams } from '../../http/params';
import { writableRecord } from '../../http/record-body';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { ticketsResource } from '../tickets/tickets.resource';
import { plannedApply } from './planned-apply';

const applyBody = writableRecord({
  trigger: referenceInput('triggers').meta({ description: 'the manual trigger to apply: `{"id": N}` or N' }),
});

/**
 * `PATCH /v2/tickets/{id}/triggerapply.json`: applies a manual trigger to a ticket the caller may
 * change, in two exchanges (`plannedApply`): its actions run as a trigger's do (each with its
 * events, one `ticket.trigger` line naming it), as often as it is applied; its conditions, if it
 * has any, must hold. A trigger that is not an active manual one of the installation is a 400
 * naming `trigger`; a ticket the caller may not change, a 404.
 */
export const applyTriggerRoute = defineRoute(
  {
    method: 'patch',
    path: '/v2/tickets/{id}/triggerapply.json',
    tag: 'Triggers',
    operationId: 'applyTrigger',
    roles: AGENTS,
    summary: 'Apply a manual trigger to a ticket',
    description:
      "Runs an active manual trigger's actions on the ticket, as a trigger's run does them (each change with its events, and a history line naming the trigger), as often as it is applied, and answers the ticket as it left it. Its conditions, if any, must hold, and a trigger naming something deleted, an action refused on the ticket, or a trigger or ticket changed meanwhile is a 409; nothing then changes. Anything but an active manual trigger of the installation is a 400 naming `trigger`, and a ticket the caller may not change a 404. See docs/resources/triggers.md.",
    request: { params: idParams, body: { required: true, content: { 'application/json': { schema: applyBody } } } },
    example: { body: { trigger: { id: 1 } } },
    responses: {
      200: jsonResponse('the ticket as the trigger left it', schemasOf(ticketsResource).one),
      404: errorResponse('no such ticket here'),
      409: errorResponse('its conditions do not hold, or it is incomplete'),
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { id } = c.req.valid('param');
    const { trigger } = c.req.valid('json') as { trigger: number };
    const { body } = await plannedApply(c.var.db, who, trigger, [id], id);
    if (!body) throw ApiError.notFound('tickets', `ticket ${id} not found`);
    return c.json(body, 200);
  },
);
