import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { systemActor } from '../../auth/principal';
import { oneRecordRead, type ResourceDeclaration, type WireRecord } from '../../engine';
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

/** Statements to send in one batch, and how their answers (in the same order) make the value. */
export interface BatchRead<T> {
  statements: SQL[];
  result(answers: ReadonlyArray<readonly Record<string, unknown>[]>): T;
}

/** The record of `resource` as the payload carries it, deleted ones too; null when it is not there at all. One statement. */
function wholeRecordRead(
  resource: ResourceDeclaration,
  installationId: number,
  id: number,
  includes: string[] = [],
): BatchRead<WireRecord | null> {
  const read = oneRecordRead(resource, systemActor(installationId, 'webhooks'), sql`${id}`, includes, true);
  return {
    statements: [read.statement],
    result([rows]) {
      const result = read.result(rows!);
      if (!result) return null;
      const record = { ...result.records[0]! };
      // references the includes answered become the records themselves
      for (const [property, type] of Object.entries(EMBEDDED)) {
        const included = result.included[type];
        if (!included || !(property in record)) continue;
        const find = (ref: { id: number } | null) =>
          ref === null ? null : (included.find((r) => r.id === ref.id) ?? ref);
        record[property] = Array.isArray(record[property]) ? record[property].map(find) : find(record[property]);
      }
      return record;
    },
  };
}

type PayloadEvent = Pick<
  StoredEvent,
  'installationId' | 'recordType' | 'recordId' | 'occurredAt' | 'actorUserId' | 'kind' | 'data'
>;

/** The records an event's deliveries carry, whole, by the property that holds them: its ticket, its message, or its own record. */
export function recordsRead(
  event: Pick<StoredEvent, 'installationId' | 'recordType' | 'recordId'>,
  ticketId: number | null,
): BatchRead<Record<string, unknown>> {
  const own: Record<string, [string, ResourceDeclaration]> = {
    customers: ['customer', customersResource],
    users: ['agent', usersResource],
    inboxes: ['inbox', inboxesResource],
    tags: ['tag', tagsResource],
  };
  const wanted: Array<[string, BatchRead<WireRecord | null>]> = [];
  if (ticketId !== null)
    wanted.push(['ticket', wholeRecordRead(ticketsResource, event.installationId, ticketId, Object.values(EMBEDDED))]);
  if (event.recordType === 'messages')
    wanted.push(['message', wholeRecordRead(messagesResource, event.installationId, event.recordId)]);
  const named = own[event.recordType];
  if (named) wanted.push([named[0], wholeRecordRead(named[1], event.installationId, event.recordId)]);
  return {
    statements: wanted.flatMap(([, read]) => read.statements),
    result: (answers) =>
      Object.fromEntries(wanted.map(([property, read], i) => [property, read.result([answers[i]!])])),
  };
}

/** `recordsRead` sent on its own: one batch. */
export async function recordsOf(
  db: Database,
  event: Pick<StoredEvent, 'installationId' | 'recordType' | 'recordId'>,
  ticketId: number | null,
): Promise<Record<string, unknown>> {
  const read = recordsRead(event, ticketId);
  return read.result(read.statements.length ? await db.batch(read.statements) : []);
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
