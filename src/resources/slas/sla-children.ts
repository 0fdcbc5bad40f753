import type { PgColumn } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import {
  companies,
  customers,
  inboxes,
  SLA_CONDITION_OPTIONS,
  SLA_NOTIFICATION_CONDITIONS,
  SLA_TARGETS,
  slaCompanies,
  slaCustomers,
  slaInboxes,
  slaNotifications,
  slaTags,
  slaTicketPriorities,
  slaTicketTypes,
  tags,
  ticketPriorities,
  ticketTypes,
  users,
} from '../../db/schema';
import { hasManyFields, referenceField, type AuditedTable, type WritableField } from '../../engine';

/** The records a policy's parts are, as `included` holds them and a write sends them. */

type ScopeTable = AuditedTable & { slaId: PgColumn; recordId: PgColumn; conditionOption: PgColumn };

/**
 * One kind of scope entry (`slacustomers`: `{customer, conditionoption}`): the ticket's value is
 * (`eq`) or is not (`ne`) the record named.
 */
function scope(
  type: string,
  component: string,
  table: ScopeTable,
  property: string,
  target: { table: AuditedTable; type: string },
) {
  const fields: Record<string, WritableField> = {
    [property]: referenceField(table.recordId, target, { required: true }),
    conditionoption: {
      column: table.conditionOption,
      schema: z
        .enum(SLA_CONDITION_OPTIONS)
        .meta({ description: "eq: the ticket's value is this record; ne: it is not (default eq)" }),
    },
  };
  return hasManyFields({ type, component, table, parentKey: table.slaId, fields });
}

/** A target of up to a year of clock minutes: one its clock can always count out. */
const MAX_TARGET_MINUTES = 525_600;
const minutesOf = (description: string) =>
  z.number().int().min(1).max(MAX_TARGET_MINUTES).nullable().meta({ description });

export const priorityTargetFields = {
  priority: referenceField(slaTicketPriorities.priorityId, { table: ticketPriorities, type: 'ticketpriorities' }),
  hours: {
    column: slaTicketPriorities.hours,
    schema: z
      .number()
      .int()
      .min(0)
      .max(MAX_TARGET_MINUTES / 60)
      .meta({ description: 'with `minutes`: the first-response target (0 and 0: none)' }),
  },
  minutes: { column: slaTicketPriorities.minutes, schema: z.number().int().min(0).max(59) },
  replyTimeMinutes: {
    column: slaTicketPriorities.replyTimeMinutes,
    schema: minutesOf('the next-reply target: minutes from a customer message to the teammate reply (null: none)'),
  },
  resolutionTimeMinutes: {
    column: slaTicketPriorities.resolutionTimeMinutes,
    schema: minutesOf('the resolution target: minutes from creation to solved or closed (null: none)'),
  },
  description: { column: slaTicketPriorities.description, schema: z.string().max(2000) },
} satisfies Record<string, WritableField>;

export const notificationFields = {
  condition: { column: slaNotifications.condition, schema: z.enum(SLA_NOTIFICATION_CONDITIONS), required: true },
  // the notification's own `type`: which target it watches
  // (a reference to the notification, `{"id", "type": "slanotifications"}`, sent back names no target)
  type: {
    column: slaNotifications.type,
    schema: z
      .union([z.enum(SLA_TARGETS), z.literal('slanotifications').transform(() => undefined)])
      .meta({ description: 'the target it watches: firstResponse, replyTime (the next reply) or resolutionTime' }),
    required: true,
  },
  duration: {
    column: slaNotifications.duration,
    schema: z.number().int().min(0).max(1_000_000).meta({
      description:
        'minutes: how long before the due time a warning comes (a breach notification comes when the target is breached)',
    }),
  },
  user: referenceField(slaNotifications.userId, { table: users, type: 'users' }),
  notifyAssignedUser: { column: slaNotifications.notifyAssignedUser, schema: z.boolean() },
} satisfies Record<string, WritableField>;

/** A policy's parts: its scopes, its targets per priority, its notifications (the platform's names). */
export const slaChildren = {
  slacustomers: scope('slacustomers', 'SlaCustomer', slaCustomers, 'customer', { table: customers, type: 'customers' }),
  slacompanies: scope('slacompanies', 'SlaCompany', slaCompanies, 'company', { table: companies, type: 'companies' }),
  slainboxes: scope('slainboxes', 'SlaInbox', slaInboxes, 'inbox', { table: inboxes, type: 'inboxes' }),
  slatickettypes: scope('slatickettypes', 'SlaTicketType', slaTicketTypes, 'tickettype', {
    table: ticketTypes,
    type: 'tickettypes',
  }),
  slatags: scope('slatags', 'SlaTag', slaTags, 'tag', { table: tags, type: 'tags' }),
  slaticketpriorities: hasManyFields({
    type: 'slaticketpriorities',
    component: 'SlaTicketPriority',
    table: slaTicketPriorities,
    parentKey: slaTicketPriorities.slaId,
    fields: priorityTargetFields,
  }),
  slanotifications: hasManyFields({
    type: 'slanotifications',
    component: 'SlaNotification',
    table: slaNotifications,
    parentKey: slaNotifications.slaId,
    fields: notificationFields,
  }),
};
