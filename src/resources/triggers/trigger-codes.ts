/**
 * The numeric codes of triggers' conditions and actions, as their writes send them: the platform's
 * known codes (condition field 2 customer email, 4 ticket type, 9 tag; operators 1 contains,
 * 2 does not contain, 3 equals, 4 not equal, 17 tag contains, 18 tag does not contain; actions
 * 4 assign agent, 5 add tags, 11 add follower) and ours around them. docs/resources/triggers.md
 * publishes this table.
 */

/** What a condition's value is: a record's id (of this type), text, or a number of hours. */
export type ValueKind = { id: string } | 'text' | 'hours' | 'customfield';

export const CONDITION_FIELDS = {
  1: { name: 'status', value: { id: 'ticketstatuses' } },
  2: { name: 'customer email', value: 'text' },
  3: { name: 'priority', value: { id: 'ticketpriorities' } },
  4: { name: 'ticket type', value: { id: 'tickettypes' } },
  5: { name: 'source', value: { id: 'ticketsources' } },
  6: { name: 'inbox', value: { id: 'inboxes' } },
  7: { name: 'agent', value: { id: 'users' } },
  8: { name: 'customer', value: { id: 'customers' } },
  9: { name: 'tag', value: { id: 'tags' } },
  10: { name: 'company', value: { id: 'companies' } },
  11: { name: 'subject', value: 'text' },
  12: { name: 'body (the latest thread entry)', value: 'text' },
  13: { name: 'custom field', value: 'customfield' },
  14: { name: "channel (the source's name)", value: 'text' },
  15: { name: 'hours since created', value: 'hours' },
  16: { name: 'hours since updated', value: 'hours' },
  17: { name: 'hours since the last customer message', value: 'hours' },
  18: { name: 'hours in its current status', value: 'hours' },
} as const satisfies Record<number, { name: string; value: ValueKind }>;

export type ConditionField = keyof typeof CONDITION_FIELDS;

/** The condition fields by name, for the code that reads them. */
export const FIELD = {
  status: 1,
  customerEmail: 2,
  priority: 3,
  ticketType: 4,
  source: 5,
  inbox: 6,
  agent: 7,
  customer: 8,
  tag: 9,
  company: 10,
  subject: 11,
  body: 12,
  customField: 13,
  channel: 14,
  hoursSinceCreated: 15,
  hoursSinceUpdated: 16,
  hoursSinceCustomerMessage: 17,
  hoursInStatus: 18,
} as const satisfies Record<string, ConditionField>;

/** The fields that make a trigger time-based: the cron evaluates it, the write events do not. */
export const TIME_FIELDS: readonly number[] = [
  FIELD.hoursSinceCreated,
  FIELD.hoursSinceUpdated,
  FIELD.hoursSinceCustomerMessage,
  FIELD.hoursInStatus,
];

export const OPERATORS = {
  1: 'contains',
  2: 'does not contain',
  3: 'equals',
  4: 'not equal',
  5: 'greater than',
  6: 'less than',
  7: 'is empty',
  8: 'is not empty',
  17: 'tag contains',
  18: 'tag does not contain',
} as const;
export type Operator = keyof typeof OPERATORS;

/** The operators by name, for the code that applies them. */
export const OPERATOR = {
  contains: 1,
  doesNotContain: 2,
  equals: 3,
  notEqual: 4,
  greaterThan: 5,
  lessThan: 6,
  isEmpty: 7,
  isNotEmpty: 8,
  tagContains: 17,
  tagDoesNotContain: 18,
} as const satisfies Record<string, Operator>;

const TEXT_OPERATORS = [
  OPERATOR.contains,
  OPERATOR.doesNotContain,
  OPERATOR.equals,
  OPERATOR.notEqual,
  OPERATOR.isEmpty,
  OPERATOR.isNotEmpty,
];

/** Which operators a value kind takes. */
export const OPERATORS_OF: Record<string, readonly number[]> = {
  id: [OPERATOR.equals, OPERATOR.notEqual, OPERATOR.isEmpty, OPERATOR.isNotEmpty],
  tags: [OPERATOR.tagContains, OPERATOR.tagDoesNotContain, OPERATOR.equals, OPERATOR.notEqual],
  text: TEXT_OPERATORS,
  hours: [OPERATOR.greaterThan, OPERATOR.lessThan],
  customfield: TEXT_OPERATORS,
};

/**
 * What each action does, what its `value` holds, and its typed payload as the platform's client
 * writes and reads it (`trigger-entries.ts`): the property naming what it sets, `{"id": N}` or a
 * list of them (`tags`); a note's and a reply's is their `message`.
 */
export const ACTIONS = {
  1: { name: 'set status', value: { id: 'ticketstatuses' }, payload: 'status' },
  2: { name: 'set priority', value: { id: 'ticketpriorities' }, payload: 'priority' },
  3: { name: 'set type', value: { id: 'tickettypes' }, payload: 'tickettype' },
  4: { name: 'assign agent (empty: unassign)', value: { id: 'users' }, payload: 'user' },
  5: { name: 'add tags', value: { ids: 'tags' }, payload: 'tags' },
  6: { name: 'remove tags', value: { ids: 'tags' }, payload: 'tags' },
  7: { name: 'move to inbox', value: { id: 'inboxes' }, payload: 'inbox' },
  8: { name: 'add an internal note', value: 'message' },
  9: { name: 'send a templated reply to the customer', value: 'message' },
  10: { name: 'call a webhook endpoint', value: { id: 'webhookendpoints' }, payload: 'webhookendpoint' },
  11: { name: 'add follower', value: { id: 'users' }, payload: 'user' },
} as const satisfies Record<
  number,
  { name: string; value: { id: string } | { ids: string } | 'message'; payload?: string }
>;
export type ActionType = keyof typeof ACTIONS;

/** The action types by name, for the code that runs them. */
export const ACTION = {
  setStatus: 1,
  setPriority: 2,
  setType: 3,
  assignAgent: 4,
  addTags: 5,
  removeTags: 6,
  moveToInbox: 7,
  addNote: 8,
  sendReply: 9,
  callWebhook: 10,
  addFollower: 11,
} as const satisfies Record<string, ActionType>;

/** How deep a chain of triggers set off by one change may go: the trigger that would act deeper does not, and a history line says so. */
export const MAX_CHAIN_DEPTH = 5;
