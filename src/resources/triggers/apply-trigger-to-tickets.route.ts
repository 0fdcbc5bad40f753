import { z } from 'zod';
import { AGENTS } from '../../auth/access';
import { referenceInput } from '../../engine';
import { idValue } from '../../http/params';
import { writableRecord } from '../../http/record-body';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { plannedApply } from './planned-apply';

const applyManyBody = writableRecord({
  trigger: referenceInput('triggers').meta({ description: 'the manual trigger to apply' }),
  tickets: z
    .array(
      z.union([
        idValue,
        z
          .object({ id: idValue })
          .loose()
          .transform((ref) => ref.id),
      ]),
    )
    .min(1)
    .max(100)
    .meta({ description: 'the tickets, 1 to 100: ids or references' }),
});

/** `PATCH /v2/tickets/triggerapply.json` */
export const applyTriggerToTicketsRoute = defineRoute(
  {
    method: 'patch',
    path: '/v2/tickets/triggerapply.json',
    tag: 'Triggers',
    operationId: 'applyTriggerToTickets',
    roles: AGENTS,
    summary: 'Apply a manual trigger to several tickets',
    description:
      'All or none: a ticket the caller may not change, or one whose conditions do not hold, changes nothing.',
    request: { body: { required: true, content: { 'application/json': { schema: applyManyBody } } } },
    example: { body: { trigger: { id: 1 }, tickets: [{ id: 1 }] } },
    responses: {
      200: jsonResponse(
        'the tickets it was applied to',
        z.object({ affected: z.number().int(), ids: z.array(z.number().int()) }),
      ),
      404: errorResponse('a ticket not here'),
      409: errorResponse('its conditions do not hold for a ticket, or it is incomplete'),
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { trigger, tickets } = c.req.valid('json') as { trigger: number; tickets: number[] };
    const ids = [...new Set(tickets)];
    await plannedApply(c.var.db, who, trigger, ids);
    return c.json({ affected: ids.length, ids: ids.sort((a, b) => a - b) }, 200);
  },
);
