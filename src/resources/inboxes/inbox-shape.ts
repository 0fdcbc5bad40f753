import { inboxes } from '../../db/schema';
import type { RecordShape } from '../../engine';

/** Inboxes as other resources include them. Their own endpoints come with the tickets work. */
export const inboxShape: RecordShape = {
  type: 'inboxes',
  component: 'Inbox',
  table: inboxes,
  properties: { name: inboxes.name, email: inboxes.email },
};
