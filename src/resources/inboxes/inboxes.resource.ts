import { sql, type SQL } from 'drizzle-orm';
import type { Env } from '../../app-env';
import type { Actor } from '../../auth/principal';
import { ADMINS, EVERYONE } from '../../auth/access';
import {
  customFieldInboxes,
  customFields,
  inboxes,
  inboxUsers,
  INBOX_ACCESS,
  ticketTypeInboxes,
  tickets,
  ticketTypes,
} from '../../db/schema';
import { AUDIT_SET, defineResource, manyToMany, reserveId, shapeOf, type WriteContext } from '../../engine';
import type { Queryable } from '../../db/client';
import { insertEventsFrom } from '../../events/record-events';
import { encryptToken, inboxSecretContext } from '../../lib/crypto';
import { z } from 'zod';
import { ticketTypesResource } from '../tickettypes/tickettypes.resource';
import { userShape } from '../users/user-shape';
import { checkInboxAddresses, inboxAddressStatements } from './inbox-addresses';
import { inboxComputed, inboxFields } from './inbox-shape';

/** The password sealed to the installation and the inbox (`inboxSecretContext`); no usable key is a 503. */
async function sealed(who: Actor, env: Env, password: string, inboxId: number): Promise<string> {
  return encryptToken(password, env.PM_TOKEN_KEY, inboxSecretContext(who.installationId, inboxId));
}

/** A new inbox's password, held back from its insert until its id is known to seal it to. */
const PASSWORD_TO_SEAL = Symbol('smtpPassword');

/**
 * The mail-server password goes into the row only as ciphertext, sealed to the installation and
 * the inbox: an update's at once, a new inbox's once it has its id (`sealNewPassword`).
 */
async function sealSmtpPassword(
  context: WriteContext,
  record: Record<string | symbol, unknown>,
  id: number | undefined,
): Promise<void> {
  if (typeof record.smtpPassword !== 'string') return;
  if (id !== undefined) {
    record.smtpPassword = await sealed(context.who, context.env, record.smtpPassword, id);
    return;
  }
  record[PASSWORD_TO_SEAL] = record.smtpPassword;
  delete record.smtpPassword;
}

async function sealNewPassword(
  context: WriteContext,
  record: Record<string | symbol, unknown>,
  id: number,
): Promise<void> {
  const password = record[PASSWORD_TO_SEAL];
  if (typeof password !== 'string') return;
  await context.tx.execute(
    sql`UPDATE inboxes SET smtp_password_ciphertext = ${await sealed(context.who, context.env, password, id)} WHERE id = ${id}`,
  );
}

/** A vocabulary limited to some inboxes (its link table and the link's column naming it), with its flag for inboxes made later. */
const LIMITED_TO_INBOXES = [
  {
    table: ticketTypes,
    links: ticketTypeInboxes,
    linkKey: ticketTypeInboxes.ticketTypeId,
    flag: ticketTypes.enabledForFutureInboxes,
    eventType: 'tickettypes',
  },
  {
    table: customFields,
    links: customFieldInboxes,
    linkKey: customFieldInboxes.customFieldId,
    flag: customFields.addToNewInboxes,
    eventType: 'customfields',
  },
];

/**
 * A new inbox joins the ticket types and custom fields limited to some inboxes that ask for
 * inboxes made later (one limited to none is offered in every inbox already): a `linked` event of
 * each. A statement a vocabulary, to run or to send in a batch (the inbox's id as SQL).
 */
function offerInFutureInboxesStatements(who: Actor, inboxId: number | SQL): SQL[] {
  return LIMITED_TO_INBOXES.map(({ table, links, linkKey, flag, eventType }) => {
    const linkColumn = sql.identifier(linkKey.name);
    return sql`
      WITH linked AS (
        INSERT INTO ${links} (installation_id, ${linkColumn}, inbox_id, created_by)
        SELECT ${who.installationId}::int, ${table.id}, ${inboxId}::int, ${who.userId}::int FROM ${table}
         WHERE ${table.installationId} = ${who.installationId} AND ${table.state} = 'active' AND ${flag}
           AND EXISTS (SELECT 1 FROM ${links} l JOIN inboxes i ON i.id = l.inbox_id AND i.state = 'active' WHERE l.${linkColumn} = ${table.id})
        ON CONFLICT DO NOTHING
        RETURNING ${linkColumn} AS id)
      ${insertEventsFrom(sql`linked`, who, eventType, 'linked', sql`jsonb_build_object('relation', 'inboxes', 'record', jsonb_build_object('id', ${inboxId}::int, 'type', 'inboxes'), 'futureInbox', true)`)}`;
  });
}

async function offerInFutureInboxes({ tx, who }: WriteContext, inboxId: number): Promise<void> {
  for (const statement of offerInFutureInboxesStatements(who, inboxId)) await tx.execute(statement);
}

/** The id a new inbox with a password is inserted with: reserved before the batch, to seal the password to. */
const RESERVED_ID = Symbol('inboxId');

/**
 * `beforeWrite`'s password rule for a write sent as one batch: an update's password sealed to its
 * id (one round trip). A new inbox's password is sealed to the id it will have: the id is taken
 * from the table's sequence first (a second exchange), and the insert takes it (`onCreate`).
 */
async function planPassword(
  who: Actor,
  env: Env,
  record: Record<string | symbol, unknown>,
  id: number | undefined,
  read: Queryable,
): Promise<boolean> {
  if (typeof record.smtpPassword !== 'string') return true;
  if (id === undefined) {
    // no usable key then answers 503, the id left unused (as a failed insert leaves one)
    id = await reserveId(read, inboxes);
    record[RESERVED_ID] = id;
  }
  record.smtpPassword = await sealed(who, env, record.smtpPassword, id);
  return true;
}

/** The new inbox's id, where `planPassword` reserved one. */
function withReservedId(record: Record<string | symbol, unknown>): Record<string, unknown> {
  const id = record[RESERVED_ID];
  return id === undefined ? {} : { id };
}

/** Mailboxes and channels: what tickets arrive through, who works them (`users`), how replies leave. */
export const inboxesResource = defineResource({
  type: 'inboxes',
  singular: 'inbox',
  title: { one: 'Inbox', many: 'Inboxes' },
  table: inboxes,
  fields: inboxFields,
  computed: inboxComputed,
  filter: [
    ...AUDIT_SET,
    'autoReplyEnabled',
    'displayOrder',
    'email',
    'happinessRatingEnabled',
    'languageCode',
    'localPart',
    'name',
    'spamThreshold',
    'ticketstatus',
    'users.id',
  ],
  relatedFilter: {
    'users.id': {
      expr: inboxUsers.userId,
      type: 'integer',
      exists: (condition) =>
        sql`EXISTS (SELECT 1 FROM ${inboxUsers} WHERE ${inboxUsers.inboxId} = ${inboxes.id} AND ${condition})`,
    },
  },
  relations: {
    users: manyToMany({
      name: 'users',
      target: userShape,
      through: inboxUsers,
      parentKey: inboxUsers.inboxId,
      targetKey: inboxUsers.userId,
      linkFields: {
        access: {
          column: inboxUsers.access,
          schema: z
            .enum(INBOX_ACCESS)
            .meta({ description: 'full: every ticket of the inbox; restricted: only those assigned to the teammate' }),
          default: 'full',
        },
      },
    }),
    tickettypes: manyToMany({
      name: 'tickettypes',
      target: shapeOf(ticketTypesResource),
      through: ticketTypeInboxes,
      parentKey: ticketTypeInboxes.inboxId,
      targetKey: ticketTypeInboxes.ticketTypeId,
    }),
  },
  // what the platform's client sends back from what it read, and settings this service has no use for
  ignored: [
    'clientOnly',
    'emailForwardingState',
    'forwardingAddress',
    'iconImage',
    'inboxaliases',
    'inboxcnames',
    'inboxemailrefs',
    'includeTicketHistoryOnForward',
    'isAdmin',
    'isFreeDomain',
    'notificationsOnly',
    'oauth2token',
    'onClosedLock',
    'projects',
    'publicIconImage',
    'restricteddomains',
    'starred',
    'syncAccountId',
    'syncDays',
    'synced',
    'syncSubscriptionId',
    'timeloggingEnabled',
    'triggers',
    'user',
    'useTeamworkMailServer',
    'usingOfficeHours',
    'verified',
  ],
  constraints: {
    inboxes_installation_email_key: { source: 'inbox.email', detail: 'another inbox has this address' },
    inboxes_installation_local_part_key: { source: 'inbox.localPart', detail: 'another inbox has this local part' },
    inboxes_smtp_port_needs_server: { source: 'inbox.smtpServer', detail: 'a mail-server port needs the server' },
  },
  access: { read: EVERYONE, write: ADMINS },
  examples: {
    create: {
      name: 'Billing',
      localPart: 'billing',
      signature: '<p>The Acme billing team</p>',
      happinessRatingEnabled: true,
    },
    update: {
      autoReplyEnabled: true,
      autoReplySubject: 'We have your message',
      autoReplyMessage: '<p>We answer within a working day.</p>',
    },
  },
  usedBy: [{ type: 'tickets', table: tickets, column: tickets.inboxId, property: 'inbox' }],
  operations: ['list', 'get', 'create', 'update', 'delete'],
  async beforeWrite(context, record, id) {
    await checkInboxAddresses(context, record);
    await sealSmtpPassword(context, record, id);
  },
  async afterWrite(context, record, id, created) {
    if (!created) return;
    await sealNewPassword(context, record, id);
    await offerInFutureInboxes(context, id);
  },
  planned: {
    before: (who, record, id, read, env) => planPassword(who, env, record, id, read),
    onCreate: (_who, record) => withReservedId(record),
    // the address rules, as statements built with the deployment's mail domain
    first: (_db, who, record, _id, env) => inboxAddressStatements(env, who, record),
    after: (_db, who, _record, id, created) => (created ? offerInFutureInboxesStatements(who, id) : []),
  },
});
