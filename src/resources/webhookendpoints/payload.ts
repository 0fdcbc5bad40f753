import type { Queryable } from '../../db/client';
import { systemActor } from '../../auth/principal';
import { selectOne, type ResourceDeclaration, type WireRecord } from '../../engine';
import type { StoredEvent } from '../../events/subscriber';
import { customersResource } from '../customers/customers.resource';
import { inboxesResource } from '../inboxes/inboxes.resource';
import { tagsResource } from '../tags/tags.resource';
import { messagesResource } from '../tickets/messages.resource';
import { ticketsResource } from '../tickets/tickets.resource';
import { usersResource } from '../users/users.resource';

/** A ticket's references the payload carries as whole records, by the `included` type that holds them. */
export const EMBEDDED: Record<string, string> = {
  customer: 'customers',
  agent: 'users',
  status: 'ticketstatuses',
  priority: 'ticketpriorities',
  type: 'tickettypes',
  tags: 'tags',
};

/** The record of `resource` as the payload carries it, deleted ones too; null when it is not there at all. */
export async function wholeRecord(
  db: Queryable,
  resource: ResourceDeclaration,
  installationId: number,
  id: number,
  includes: string[] = [],
): Promise<WireRecord | null> {
  const result = await selectOne(db, resource, id, {
    who: systemActor(installationId, 'webhooks'),
    includes,
    withDeleted: true,
  });
  if (!result) return null;
  const record = { ...result.records[0]! };
  // references the includes answered become the records themselves
  for (const [property, type] of Object.entries(EMBEDDED)) {
    const included = result.included[type];
    if (!included || !(property in record)) continue;
    const find = (ref: { id: number } | null) => (ref === null ? null : (included.find((r) => r.id === ref.id) ?? ref));
    record[property] = Array.isArray(record[property]) ? record[property].map(find) : find(record[property]);
  }
  return record;
}

type PayloadEvent = Pick<
  StoredEvent,
  'installationId' | 'recordType' | 'recordId' | 'occurredAt' | 'actorUserId' | 'kind' | 'data'
>;

/** The records an event's deliveries carry, whole, by the property that holds them: its ticket, its message, or its own record. Read side by side. */
export async function recordsOf(
  db: Queryable,
  event: Pick<StoredEvent, 'installationId' | 'recordType' | 'recordId'>,
  ticketId: number | null,
): Promise<Record<string, unknown>> {
  const own: Record<string, [string, ResourceDeclaration]> = {
    customers: ['customer', customersResource],
    users: ['agent', usersResource],
    inboxes: ['inbox', inboxesResource],
    tags: ['tag', tagsResource],
  };
  const wanted: Array<[string, Promise<WireRecord | null>]> = [];
  if (ticketId !== null)
    wanted.push(['ticket', wholeRecord(db, ticketsResource, event.installationId, ticketId, Object.values(EMBEDDED))]);
  if (event.recordType === 'messages')
    wanted.push(['message', wholeRecord(db, messagesResource, event.installationId, event.recordId)]);
  const named = own[event.recordType];
  if (named) wanted.push([named[0], wholeRecord(db, named[1], event.installationId, event.recordId)]);
  return Object.fromEntries(
    await Promise.all(wanted.map(async ([property, record]) => [property, await record] as const)),
  );
}

/** The one shape of a delivery's body, a test event's too: the webhook event, when and by whom, then what it carries. */
export function deliveryBody(
  code: string,
  occurredAt: string | Date,
  eventCreatorId: number | null,
  carried: Record<string, unknown>,
): string {
  return JSON.stringify({ event: code, occurredAt: new Date(occurredAt).toISOString(), eventCreatorId, ...carried });
}

/** What one delivery carries: the webhook event, when and by whom, the trigger a trigger's run names, and the event's records. */
export function bodyOf(event: PayloadEvent, code: string, records: Record<string, unknown>): string {
  const trigger = event.kind === 'triggered' ? { trigger: event.data.trigger } : {};
  return deliveryBody(code, event.occurredAt, event.actorUserId, { ...trigger, ...records });
}
