import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { AGENTS } from '../../auth/access';
import { AI_DRAFT_TONES, aiDrafts, ticketMessages, tickets } from '../../db/schema';
import { AUDIT_SET, defineResource, referenceField, refSchema, typed, type WritableField } from '../../engine';
import { includedUsers } from '../users/user-shape';
import { ofVisibleTicket } from '../tickets/ticket-visibility';

const fields: Record<string, WritableField> = {
  ticket: referenceField(aiDrafts.ticketId, { table: tickets, type: 'tickets' }, { required: true, readOnly: true }),
  replyTo: referenceField(aiDrafts.replyToId, { table: ticketMessages, type: 'messages' }, { readOnly: true }),
  message: {
    column: aiDrafts.htmlBody,
    schema: z.string().meta({
      description:
        "the drafted reply, sanitized HTML: send it (as it is or edited) as a reply's `message` with `aiDraft`",
    }),
    readOnly: true,
  },
  textBody: {
    column: aiDrafts.textBody,
    schema: z.string().meta({ description: 'the draft as plain text' }),
    readOnly: true,
  },
  sources: {
    column: aiDrafts.sources,
    schema: z.unknown(),
    readOnly: true,
    output: typed(
      sql`(SELECT coalesce(json_agg(json_build_object('id', s.id, 'type', 'helpdocarticles') ORDER BY s.n), '[]'::json)
        FROM unnest(${aiDrafts.sources}) WITH ORDINALITY AS s(id, n))`,
      z
        .array(refSchema('helpdocarticles'))
        .meta({ description: 'the help-doc articles the draft cites, in the order cited' }),
    ),
  },
  model: {
    column: aiDrafts.model,
    schema: z.string().meta({ description: 'the model that wrote it, as it names itself' }),
    readOnly: true,
  },
  instructions: {
    column: aiDrafts.instructions,
    schema: z.string().nullable().meta({ description: 'what the teammate asked for' }),
    readOnly: true,
  },
  tone: {
    column: aiDrafts.tone,
    schema: z.enum(AI_DRAFT_TONES).nullable().meta({ description: 'the tone asked for; null: the default, friendly' }),
    readOnly: true,
  },
};

/**
 * Reply drafts the AI wrote for tickets (docs/ai.md, "Reply drafts"): made by
 * `POST /v2/tickets/{id}/aidrafts.json` (`create-ticket-ai-draft.route.ts`), read back by
 * `GET /v2/aidrafts/{id}.json`. A caller sees the drafts of the live tickets they see.
 */
export const aiDraftsResource = defineResource({
  type: 'aidrafts',
  singular: 'aidraft',
  title: { one: 'AiDraft', many: 'AiDrafts', group: 'AIDrafts' },
  table: aiDrafts,
  fields,
  filter: [...AUDIT_SET, 'ticket'],
  relations: { users: includedUsers() },
  access: { read: AGENTS, write: AGENTS },
  operations: ['get'],
  scope: ofVisibleTicket(aiDrafts.ticketId),
});
