import { and, eq, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Env } from '../../app-env';
import { ADMINS } from '../../auth/access';
import type { Actor } from '../../auth/principal';
import { inboxes, webhookEndpointEvents, webhookEndpointInboxes, webhookEndpoints } from '../../db/schema';
import {
  AUDIT_SET,
  defineResource,
  hasManyFields,
  readOnlyTimeField,
  referenceField,
  type Writer,
  type WriteContext,
} from '../../engine';
import { ApiError } from '../../http/errors';
import { encryptToken, webhookTokenContext } from '../../lib/crypto';
import { destinationRules, refusedDestination } from '../../lib/outbound/destination';
import { includedUsers } from '../users/user-shape';
import { WEBHOOK_EVENTS } from './webhook-events';

const eventFields = {
  code: {
    column: webhookEndpointEvents.code,
    schema: z
      .enum(WEBHOOK_EVENTS)
      .meta({ description: 'a webhook event the endpoint wants (docs/resources/webhookendpoints.md)' }),
    required: true,
  },
};
const inboxFields = {
  inbox: referenceField(webhookEndpointInboxes.inboxId, { table: inboxes, type: 'inboxes' }, { required: true }),
};

/** The address must be one deliveries may reach; the token is sealed before it is stored. */
async function checkEndpoint(
  { tx, who, env }: WriteContext,
  record: Record<string, unknown>,
  id: number | undefined,
): Promise<void> {
  await settleEndpoint(who, env, record);
  const restart = afreshStatement(tx, who, record, id);
  if (restart) await tx.execute(restart);
}

/**
 * The rules of an endpoint that are none of the database's, in the Worker before anything is
 * written (the interactive write's and the batch's): the address resolved (DNS over HTTPS) to
 * check it reaches only public addresses, the token sealed to the installation.
 */
async function settleEndpoint(who: Actor, env: Env, record: Record<string, unknown>): Promise<void> {
  if (typeof record.url === 'string') {
    const refused = await refusedDestination(record.url, destinationRules(env), AbortSignal.timeout(5_000));
    if (refused) throw ApiError.invalid('webhookendpoint.url', refused);
  }
  if (typeof record.token === 'string') {
    record.token = await encryptToken(record.token, env.PM_TOKEN_KEY, webhookTokenContext(who.installationId));
  }
}

/** Switched on again: its run of failures starts afresh. */
function afreshStatement(
  db: Writer,
  who: Actor,
  record: Record<string, unknown>,
  id: number | undefined,
): SQL | undefined {
  if (record.enabled !== true || id === undefined) return undefined;
  return db
    .update(webhookEndpoints)
    .set({ disabledAt: null, failingSince: null })
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.installationId, who.installationId)))
    .getSQL();
}

/**
 * Where an installation's events are pushed (`/v2/webhookendpoints.json`), as the platform has
 * it: the address, the signing token, all events or those named (`webhookendpointevents`), all
 * inboxes or those named (`webhookendpointinboxes`). Owners and admins only.
 */
export const webhookEndpointsResource = defineResource({
  type: 'webhookendpoints',
  singular: 'webhookendpoint',
  title: { one: 'WebhookEndpoint', many: 'WebhookEndpoints', group: 'Webhooks' },
  table: webhookEndpoints,
  fields: {
    url: {
      column: webhookEndpoints.url,
      schema: z
        .string()
        .trim()
        .min(1)
        .max(2000)
        .meta({ description: 'an https address that is, and resolves only to, public addresses' }),
      required: true,
    },
    token: {
      column: webhookEndpoints.token,
      schema: z
        .string()
        .min(16)
        .max(256)
        .meta({ description: 'the signing secret (16 to 256 characters): stored sealed, never answered' }),
      required: true,
      writeOnly: true,
      notInBulk: true,
    },
    allInboxes: {
      column: webhookEndpoints.allInboxes,
      schema: z
        .boolean()
        .meta({ description: 'true (default): tickets of every inbox; false: those of `webhookendpointinboxes`' }),
    },
    allEvents: {
      column: webhookEndpoints.allEvents,
      schema: z.boolean().meta({ description: 'true (default): every event; false: those of `webhookendpointevents`' }),
    },
    contentType: {
      column: webhookEndpoints.contentType,
      schema: z.literal('application/json').meta({ description: "the body's type: application/json" }),
    },
    enabled: {
      column: webhookEndpoints.enabled,
      schema: z.boolean().meta({
        description: 'false: nothing is sent; a day of failed deliveries switches it off, true switches it on again',
      }),
    },
    disabledAt: readOnlyTimeField(webhookEndpoints.disabledAt, 'when a day of failures switched it off'),
  },
  filter: [...AUDIT_SET, 'allEvents', 'allInboxes', 'enabled', 'url'],
  relations: {
    webhookendpointevents: hasManyFields({
      type: 'webhookendpointevents',
      component: 'WebhookEndpointEvent',
      table: webhookEndpointEvents,
      parentKey: webhookEndpointEvents.endpointId,
      fields: eventFields,
    }),
    webhookendpointinboxes: hasManyFields({
      type: 'webhookendpointinboxes',
      component: 'WebhookEndpointInbox',
      table: webhookEndpointInboxes,
      parentKey: webhookEndpointInboxes.endpointId,
      fields: inboxFields,
    }),
    users: includedUsers(),
  },
  includedWrites: ['webhookendpointevents', 'webhookendpointinboxes'],
  access: { read: ADMINS, write: ADMINS },
  examples: {
    create: {
      url: 'https://hooks.acme.example/desk',
      token: 'a-long-shared-secret-of-yours',
      allEvents: true,
      allInboxes: true,
    },
    update: { enabled: false },
  },
  operations: ['list', 'get', 'create', 'update', 'delete'],
  beforeWrite: checkEndpoint,
  planned: {
    before: async (who, record, _id, _read, env) => {
      await settleEndpoint(who, env, record);
      return true;
    },
    first: (db, who, record, id) =>
      [afreshStatement(db, who, record, id)].filter((statement) => statement !== undefined),
  },
});

/** The endpoint's live wanted codes and inboxes, and what it is, for the fan-out. */
export const endpointsQuery = (installationId: number) => sql`
  SELECT e.id, e.all_events, e.all_inboxes,
    coalesce((SELECT json_agg(v.code) FROM webhook_endpoint_events v WHERE v.endpoint_id = e.id AND v.state = 'active'), '[]') AS codes,
    coalesce((SELECT json_agg(i.inbox_id) FROM webhook_endpoint_inboxes i WHERE i.endpoint_id = e.id AND i.state = 'active'), '[]') AS inboxes
    FROM webhook_endpoints e WHERE e.installation_id = ${installationId} AND e.state = 'active' AND e.enabled`;
