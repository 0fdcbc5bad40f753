import type { Transaction } from '../../db/client';
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
export const EMBEDDED: Record<string, string> = { customer: 'customers', agent: 'users', status: 'ticketstatuses', priority: 'ticketpriorities', type: 'tickettypes', tags: 'tags' };

/** The record of `resource` as the payload carries it, deleted ones too; null when it is not there at all. */
export async function wholeRecord(tx: Transaction, resource: ResourceDeclaration, installationId: number, id: number, includes: string[] = []): Promise<WireRecord | null> {
  const result = await selectOne(tx, resource, id, { who: systemActor(installationId, 'webhooks'), includes, withDeleted: true });
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

/** What an event's deliveries carry: the event, who made it, and the records it is about, whole. */
export async function payloadOf(tx: Transaction, event: Pick<StoredEvent, 'installationId' | 'recordType' | 'recordId' | 'occurredAt' | 'actorUserId'>, ticketId: number | undefined, code: string): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = { event: code, occurredAt: new Date(event.occurredAt).toISOString(), eventCreatorId: event.actorUserId };
  if (ticketId !== undefined) body.ticket = await wholeRecord(tx, ticketsResource, event.installationId, ticketId, Object.values(EMBEDDED));
  if (event.recordType === 'messages') body.message = await wholeRecord(tx, messagesResource, event.installationId, event.recordId);
  const own: Record<string, [string, ResourceDeclaration]> = { customers: ['customer', customersResource], users: ['agent', usersResource], inboxes: ['inbox', inboxesResource], tags: ['tag', tagsResource] };
  const named = own[event.recordType];
  if (named) body[named[0]] = await wholeRecord(tx, named[1], event.installationId, event.recordId);
  return body;
}

