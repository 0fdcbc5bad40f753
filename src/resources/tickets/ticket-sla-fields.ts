import type { PgColumn } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { SLA_TARGET_STATES, slas, tickets } from '../../db/schema';
import { readOnlyTimeField, referenceField, type WritableField } from '../../engine';

const due = (column: PgColumn, what: string) =>
  readOnlyTimeField(column, `when the ${what} target falls due (null: no target, or none running)`);
const state = (column: PgColumn, what: string): WritableField => ({
  column,
  schema: z
    .enum(SLA_TARGET_STATES)
    .nullable()
    .meta({
      description: `where the ${what} target stands: pending, warning (inside its warning time), paused (the ticket waits on the customer, or is solved), met, breached; null: no target`,
    }),
  readOnly: true,
});

/**
 * A ticket's SLA, as the policy's clocks keep it (`src/resources/slas/`): read-only, filterable
 * and orderable (`filter={"sla_breached": true}`, `orderBy=slaResolutionDueAt`).
 */
export const ticketSlaFields = {
  sla: referenceField(tickets.slaId, { table: slas, type: 'slas' }, { readOnly: true }),
  slaFirstResponseDueAt: due(tickets.slaFirstResponseDueAt, 'first-response'),
  slaFirstResponseStatus: state(tickets.slaFirstResponseStatus, 'first-response'),
  slaNextReplyDueAt: due(tickets.slaNextReplyDueAt, 'next-reply'),
  slaNextReplyStatus: state(tickets.slaNextReplyStatus, 'next-reply'),
  slaResolutionDueAt: due(tickets.slaResolutionDueAt, 'resolution'),
  slaResolutionStatus: state(tickets.slaResolutionStatus, 'resolution'),
  sla_breached: {
    column: tickets.slaBreached,
    schema: z.boolean().meta({ description: 'some target of its policy is breached' }),
    readOnly: true,
  },
} satisfies Record<string, WritableField>;
