import { z } from 'zod';
import { AGENTS } from '../../auth/access';
import { referenceInput, readBack, schemasOf } from '../../engine';
import { ApiError } from '../../http/errors';
import { idParams, idValue } from '../../http/params';
import { writableRecord } from '../../http/record-body';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import type { Transaction } from '../../db/client';
import type { Actor } from '../../auth/principal';
import { lockTickets } from '../tickets/ticket-lock';
import { ticketsResource } from '../tickets/tickets.resource';
import { ticketFacts, triggerMatches } from './trigger-conditions';
import { problemsOf, storedTrigger } from './trigger-rules';
import { workingHoursOf } from '../businesshours/working-hours-of';
import { runTrigger } from './trigger-runner';
import { plannedApply } from './planned-apply';
import type { Env } from '../../app-env';

const applyBody = writableRecord({ trigger: referenceInput('triggers').meta({ description: 'the manual trigger to apply: `{"id": N}` or N' }) });
const applyManyBody = writableRecord({
  trigger: referenceInput('triggers').meta({ description: 'the manual trigger to apply' }),
  tickets: z.array(z.union([idValue, z.object({ id: idValue }).loose().transform((ref) => ref.id)])).min(1).max(100).meta({ description: 'the tickets, 1 to 100: ids or references' }),
});

/**
 * Applies a manual trigger to tickets the caller may change: its actions run as a trigger's do
 * (each with its events, one `ticket.trigger` line naming it), as often as it is applied. Its
 * conditions, if it has any, must hold for each ticket. A trigger that is not an active manual
 * one of the installation is a 400 naming `trigger`; a ticket the caller may not change, a 404.
 */
async function apply(tx: Transaction, env: Env, who: Actor, triggerId: number, ticketIds: number[]): Promise<number[]> {
  const trigger = await storedTrigger(tx, who.installationId, triggerId);
  if (!trigger || trigger.type !== 'Manual' || trigger.state !== 'active') throw ApiError.invalid('trigger', `no active manual trigger ${triggerId} here`);
  const locked = await lockTickets(tx, who, ticketIds);
  const absent = ticketIds.find((id) => !locked.some((ticket) => ticket.id === id));
  if (absent !== undefined) throw ApiError.notFound('tickets', `ticket ${absent} not found`);
  const missing = (await problemsOf(tx, who.installationId, trigger)).find((problem) => problem.missing);
  if (missing) throw ApiError.conflict('trigger', `trigger ${triggerId} cannot run until it is fixed: ${missing.detail}`);
  const hours = trigger.businesshoursId === null ? undefined : await workingHoursOf(tx, who.installationId, trigger.businesshoursId);
  const applied: number[] = [];
  for (const id of ticketIds) {
    const facts = await ticketFacts(tx, who.installationId, id);
    if (!facts) continue;
    if (!triggerMatches(trigger, facts, new Date(), hours)) throw ApiError.conflict('trigger', `trigger ${triggerId}'s conditions do not hold for ticket ${id}`);
    const { failed } = await runTrigger(tx, env, trigger, facts, 1, who.installationId);
    if (failed) throw ApiError.conflict('trigger', `trigger ${triggerId} could not act on ticket ${id}: ${failed}`);
    applied.push(id);
  }
  return applied;
}

/** `PATCH /v2/tickets/{id}/triggerapply.json`: two exchanges where the trigger's actions have a batch form (`plannedApply`), else a transaction. */
export const applyTriggerRoute = defineRoute({
  method: 'patch', path: '/v2/tickets/{id}/triggerapply.json', tag: 'Triggers', operationId: 'applyTrigger', roles: AGENTS,
  summary: 'Apply a manual trigger to a ticket',
  request: { params: idParams, body: { required: true, content: { 'application/json': { schema: applyBody } } } },
  responses: { 200: jsonResponse('the ticket as the trigger left it', schemasOf(ticketsResource).one), 404: errorResponse('no such ticket here'), 409: errorResponse('its conditions do not hold, or it is incomplete') },
}, async (c) => {
  const who = c.var.principal;
  const { id } = c.req.valid('param');
  const { trigger } = c.req.valid('json') as { trigger: number };
  const planned = await plannedApply(c.var.db, who, trigger, [id], id);
  const body = planned
    ? planned.body
    : await c.var.db.transaction(async (tx) => {
        await apply(tx, c.env, who, trigger, [id]);
        return readBack(tx, ticketsResource, who, id, []);
      });
  if (!body) throw ApiError.notFound('tickets', `ticket ${id} not found`);
  return c.json(body, 200);
});

/** `PATCH /v2/tickets/triggerapply.json` */
export const applyTriggerManyRoute = defineRoute({
  method: 'patch', path: '/v2/tickets/triggerapply.json', tag: 'Triggers', operationId: 'applyTriggerToTickets', roles: AGENTS,
  summary: 'Apply a manual trigger to several tickets',
  description: 'All or none: a ticket the caller may not change, or one whose conditions do not hold, changes nothing.',
  request: { body: { required: true, content: { 'application/json': { schema: applyManyBody } } } },
  responses: { 200: jsonResponse('the tickets it was applied to', z.object({ affected: z.number().int(), ids: z.array(z.number().int()) })), 404: errorResponse('a ticket not here'), 409: errorResponse('its conditions do not hold for a ticket, or it is incomplete') },
}, async (c) => {
  const who = c.var.principal;
  const { trigger, tickets } = c.req.valid('json') as { trigger: number; tickets: number[] };
  const ids = [...new Set(tickets)];
  const applied = (await plannedApply(c.var.db, who, trigger, ids)) ? ids : await c.var.db.transaction((tx) => apply(tx, c.env, who, trigger, ids));
  return c.json({ affected: applied.length, ids: applied.sort((a, b) => a - b) }, 200);
});
