import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { emailAddress, optionalText } from '../../lib/field-schemas';
import { inboxes, SMTP_SECURITY, ticketStatuses } from '../../db/schema';
import { unverifiedAddressesSql } from './inbox-addresses';
import { referenceField, shapeOfFields, type ComputedField, type WritableField } from '../../engine';

const HOST = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** An inbox's properties, as the platform's record has them: the resource's fields, and the shape others include it with. */
export const inboxFields: Record<string, WritableField> = {
  name: { column: inboxes.name, schema: z.string().trim().min(1).max(255), required: true },
  email: { column: inboxes.email, schema: emailAddress.nullable() },
  localPart: {
    column: inboxes.localPart,
    schema: z
      .string()
      .trim()
      .toLowerCase()
      .regex(
        /^[a-z0-9](?:[a-z0-9._+-]{0,62}[a-z0-9])?$/,
        'must be the part of an address before the @, such as support',
      )
      .nullable(),
  },
  aliases: {
    column: inboxes.aliases,
    schema: z
      .array(emailAddress)
      .max(20)
      .transform((list) => [...new Set(list.map((address) => address.toLowerCase()))])
      .meta({
        description:
          "more addresses it receives mail at (the team's other addresses, routed or forwarded here); at most 20",
      }),
  },
  ticketstatus: referenceField(inboxes.ticketStatusId, { table: ticketStatuses, type: 'ticketstatuses' }),
  signature: { column: inboxes.signature, schema: optionalText(10_000) },
  autoReplyEnabled: { column: inboxes.autoReplyEnabled, schema: z.boolean() },
  autoReplySubject: { column: inboxes.autoReplySubject, schema: optionalText(255) },
  autoReplyMessage: { column: inboxes.autoReplyMessage, schema: optionalText(10_000) },
  displayOrder: { column: inboxes.displayOrder, schema: z.number().int().min(0).max(1_000_000) },
  languageCode: {
    column: inboxes.languageCode,
    schema: z.string().regex(/^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/, 'must be a language tag such as en or pt-BR'),
  },
  spamThreshold: {
    column: inboxes.spamThreshold,
    schema: z
      .number()
      .int()
      .min(0)
      .max(100)
      .meta({ description: 'the spam score from which a message is spam; 0 to 100' }),
  },
  onClosedWait: {
    column: inboxes.onClosedWait,
    schema: z
      .number()
      .int()
      .min(0)
      .max(365)
      .meta({ description: "days after closing during which a customer's reply reopens the ticket" }),
  },
  happinessRatingEnabled: { column: inboxes.happinessRatingEnabled, schema: z.boolean() },
  happinessRatingMessage: { column: inboxes.happinessRatingMessage, schema: optionalText(10_000) },
  smtpServer: {
    column: inboxes.smtpServer,
    schema: z.string().trim().regex(HOST, 'must be a host name such as smtp.example.com').nullable(),
  },
  smtpPort: { column: inboxes.smtpPort, schema: z.number().int().min(1).max(65_535).nullable() },
  smtpUsername: { column: inboxes.smtpUsername, schema: optionalText(255) },
  smtpPassword: {
    column: inboxes.smtpPasswordCiphertext,
    schema: z
      .string()
      .min(1)
      .max(1024)
      .nullable()
      .meta({ description: 'write-only: stored encrypted, never answered (see hasSmtpPassword); null removes it' }),
    writeOnly: true,
  },
  smtpSecurity: { column: inboxes.smtpSecurity, schema: z.enum(SMTP_SECURITY).nullable() },
  smtpProvider: { column: inboxes.smtpProvider, schema: optionalText(64) },
  sendEmailsFrom: { column: inboxes.sendEmailsFrom, schema: emailAddress.nullable() },
};

export const inboxComputed: Record<string, ComputedField> = {
  unverifiedAddresses: {
    type: 'string',
    schema: z.array(z.string()).meta({
      description:
        'its own addresses (`email`, `aliases`, `sendEmailsFrom`) on a domain the helpdesk has not verified (`/v2/maildomains.json`): mail to them is refused, and none is sent from them, until it is',
    }),
    expr: unverifiedAddressesSql,
  },
  hasSmtpPassword: {
    type: 'boolean',
    schema: z.boolean().meta({ description: 'a mail-server password is stored' }),
    expr: sql`(${inboxes.smtpPasswordCiphertext} IS NOT NULL)`,
  },
};

/** Inboxes as other records include them. */
export const inboxShape = shapeOfFields({
  type: 'inboxes',
  component: 'Inbox',
  table: inboxes,
  fields: inboxFields,
  computed: inboxComputed,
});
