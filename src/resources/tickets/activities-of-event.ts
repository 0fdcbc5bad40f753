import type { StoredEvent } from '../../events/subscriber';

/** One line of a ticket's history, as an event describes it (the subscriber adds the ticket's inbox). */
export interface ActivityDraft {
  eventType: string;
  changes: Record<string, unknown>;
  statusId?: number | null;
  targetAgentId?: number | null;
  inboxId?: number | null;
  oldInboxId?: number | null;
  messageId?: number | null;
  otherTicketId?: number | null;
}

interface Change {
  before: unknown;
  after: unknown;
}

const idOf = (value: unknown): number | null =>
  value !== null && typeof value === 'object' && 'id' in value && Number.isInteger((value as { id: unknown }).id)
    ? (value as { id: number }).id
    : null;

/** A ticket property whose change is an activity of its own; the other properties share one `ticket.updated`. */
const OWN_ACTIVITY: Record<string, (change: Change) => Omit<ActivityDraft, 'changes'>> = {
  status: (change) => ({ eventType: 'ticket.status', statusId: idOf(change.after) }),
  priority: () => ({ eventType: 'ticket.priority' }),
  type: () => ({ eventType: 'ticket.type' }),
  source: () => ({ eventType: 'ticket.source' }),
  subject: () => ({ eventType: 'ticket.subject' }),
  customer: () => ({ eventType: 'ticket.customer' }),
  agent: (change) =>
    change.after === null
      ? { eventType: 'ticket.unassigned', targetAgentId: idOf(change.before) }
      : { eventType: 'ticket.assigned', targetAgentId: idOf(change.after) },
  inbox: (change) => ({ eventType: 'ticket.moved', inboxId: idOf(change.after), oldInboxId: idOf(change.before) }),
  state: (change) => ({ eventType: change.after === 'active' ? 'ticket.restored' : 'ticket.deleted' }),
  mergedInto: (change) => ({ eventType: 'ticket.mergedinto', otherTicketId: idOf(change.after) }),
};

/** A ticket's SLA target states (`ticket-sla-fields.ts`). */
const SLA_TARGET_STATUSES = ['slaFirstResponseStatus', 'slaNextReplyStatus', 'slaResolutionStatus'];

/** A relation change of a ticket (`linked`, `unlinked`): the event type by relation, added and removed. */
const RELATION_ACTIVITY: Record<string, { property: string; added: string; removed: string }> = {
  tags: { property: 'tag', added: 'ticket.tag.added', removed: 'ticket.tag.removed' },
  followers: { property: 'follower', added: 'ticket.follower.added', removed: 'ticket.follower.removed' },
  tasks: { property: 'task', added: 'ticket.task.added', removed: 'ticket.task.removed' },
};

function ticketUpdate(data: Record<string, unknown>): ActivityDraft[] {
  // a ticket folded into another closes as part of the merge: one line says both
  if (data.mergedInto) return [{ ...OWN_ACTIVITY.mergedInto!(data.mergedInto as Change), changes: data }];
  const drafts: ActivityDraft[] = [];
  const rest: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(data)) {
    if (name.startsWith('sla')) {
      // the SLA's clocks: a target warned of or breached is a line; due times moving are not
      const after = (value as Change).after;
      if (SLA_TARGET_STATUSES.includes(name) && (after === 'warning' || after === 'breached'))
        drafts.push({ eventType: `ticket.sla.${after}`, changes: { [name]: value } });
      continue;
    }
    const own = OWN_ACTIVITY[name];
    if (own) drafts.push({ ...own(value as Change), changes: { [name]: value } });
    else rest[name] = value;
  }
  if (Object.keys(rest).length > 0) drafts.push({ eventType: 'ticket.updated', changes: rest });
  return drafts;
}

function ticketActivities(event: StoredEvent): ActivityDraft[] {
  const { data } = event;
  switch (event.kind) {
    case 'created':
      return [{ eventType: 'ticket.created', changes: {} }];
    case 'updated':
      return ticketUpdate(data);
    case 'deleted':
      return [{ eventType: 'ticket.deleted', changes: {} }];
    case 'linked':
    case 'unlinked': {
      const relation = RELATION_ACTIVITY[data.relation as string];
      if (!relation) return [];
      const eventType = event.kind === 'linked' ? relation.added : relation.removed;
      return [
        {
          eventType,
          changes: { [relation.property]: data.record },
          targetAgentId: relation.property === 'follower' ? idOf(data.record) : undefined,
        },
      ];
    }
    case 'merged':
      return [{ eventType: 'ticket.merged', changes: { ticket: data.ticket }, otherTicketId: idOf(data.ticket) }];
    case 'triggered':
      // a trigger acted (its actions have lines of their own, by the `triggers` part), or was stopped at the chain's depth
      return [
        {
          eventType:
            data.stopped === true
              ? 'ticket.trigger.stopped'
              : data.failed !== undefined
                ? 'ticket.trigger.failed'
                : 'ticket.trigger',
          changes: data,
        },
      ];
    case 'split':
      return [
        {
          eventType: 'ticket.split',
          changes: { ticket: data.ticket, message: data.message },
          otherTicketId: idOf(data.ticket),
          messageId: idOf(data.message),
        },
      ];
    default:
      return [];
  }
}

/** A thread entry as the history needs it. */
export interface EntryFacts {
  threadType: string;
  /** written by the customer (not a teammate) */
  byCustomer: boolean;
}

/** The reply or note an entry is once it is in the thread (no draft, not the ticket's first message). */
function entryActivity(entry: EntryFacts, messageId: number): ActivityDraft {
  const eventType =
    entry.threadType === 'note' ? 'ticket.note' : entry.byCustomer ? 'ticket.customer.reply' : 'ticket.agent.reply';
  return { eventType, changes: {}, messageId };
}

/** Changes of an entry that are not an edit of it. */
const NOT_EDITS = new Set(['isDraft', 'ticket', 'customer', 'emailStatus', 'emailError']);

function messageActivities(event: StoredEvent, entry: EntryFacts): ActivityDraft[] {
  const { data } = event;
  const messageId = event.recordId;
  switch (event.kind) {
    case 'created':
      return data.opening === true || data.isDraft === true ? [] : [entryActivity(entry, messageId)];
    case 'updated': {
      const drafts: ActivityDraft[] = [];
      // a draft sent is the reply it was kept back as
      if ((data.isDraft as Change | undefined)?.after === false) drafts.push(entryActivity(entry, messageId));
      // an entry moved to another ticket (a merge, a split), or whose customer was merged into
      // another, is told by the tickets' own lines
      // nor is how its mail to the customer went (`emailStatus`): no one edited it
      const edited = Object.fromEntries(Object.entries(data).filter(([name]) => !NOT_EDITS.has(name)));
      if (Object.keys(edited).length > 0) drafts.push({ eventType: 'thread.edited', changes: edited, messageId });
      return drafts;
    }
    case 'deleted':
      return [{ eventType: 'thread.deleted', changes: {}, messageId }];
    default:
      return [];
  }
}

/**
 * The history lines an event makes: of a ticket's own events, of its thread entries' (with
 * the facts of the entry), and of its AI drafts'. A change of several properties makes one line per property
 * that has its own event type (status, agent, inbox, ...) and one `ticket.updated` for the rest.
 */
export function activitiesOf(event: StoredEvent, entry?: EntryFacts): ActivityDraft[] {
  if (event.recordType === 'tickets') return ticketActivities(event);
  if (event.recordType === 'messages' && entry) return messageActivities(event, entry);
  // the AI drafted a reply (docs/ai.md): a line, though nothing reached the customer
  if (event.recordType === 'aidrafts' && event.kind === 'created')
    return [{ eventType: 'ticket.aidraft', changes: { aidraft: { id: event.recordId, type: 'aidrafts' } } }];
  return [];
}
