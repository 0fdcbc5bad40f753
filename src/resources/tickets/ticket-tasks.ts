import { ticketTasks } from '../../db/schema';
import { ownedRecords, refProperty, type RecordShape } from '../../engine';

/**
 * A ticket's link to a project-management task, as `includes=tasks` reads it: `taskId` is the
 * product's own id (the one `POST /v2/tickets/{id}/tasks/{taskId}.json` names), `name` and `url`
 * as the product answered when the task was linked.
 */
export const ticketTaskShape: RecordShape = {
  type: 'tasks',
  component: 'TicketTask',
  table: ticketTasks,
  properties: {
    ticket: refProperty(ticketTasks.ticketId, 'tickets', false),
    taskId: ticketTasks.taskId,
    name: ticketTasks.name,
    url: ticketTasks.url,
  },
};

/** `tasks` of a ticket: its live task links, written only by the link and unlink operations (`link-ticket-task.route.ts`, `unlink-ticket-task.route.ts`). */
export const ticketTasksRelation = ownedRecords({ shape: ticketTaskShape, parentKey: ticketTasks.ticketId });
