import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { ticketTasks } from '../../db/schema';
import { integerParam } from '../../http/params';
export const PATH = '/v2/tickets/{id}/tasks/{taskId}.json';

export const params = z.object({
  id: integerParam("the ticket's id"),
  taskId: integerParam("the task's id in the project-management product", Number.MAX_SAFE_INTEGER),
});

/** The ticket's `linked` / `unlinked` event of a changed link row (`r`), as a tag's reads. */
export const linkEvent = sql`jsonb_build_object('relation', 'tasks', 'record', jsonb_build_object('id', r.id, 'type', 'tasks', 'taskId', r.task_id, 'name', r.name))`;
export const RETURNING = sql`RETURNING id, ticket_id, task_id, name`;

export const liveLink = (ticketId: number, taskId: number) =>
  and(eq(ticketTasks.ticketId, ticketId), eq(ticketTasks.taskId, taskId), eq(ticketTasks.state, 'active'));
