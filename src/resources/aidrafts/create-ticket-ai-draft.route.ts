import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { AGENTS } from '../../auth/access';
import { AI_DRAFT_TONES, aiDrafts, tickets } from '../../db/schema';
import { recalledIfAny, remember } from '../../db/refusal';
import { schemasOf, sendWithReadBack } from '../../engine';
import { withEvents } from '../../events/record-events';
import { ApiError } from '../../http/errors';
import { idParams } from '../../http/params';
import { writableRecord } from '../../http/record-body';
import { errorResponse, jsonResponse } from '../../http/responses';
import { defineRoute } from '../../http/route';
import { complete, modelConfig, ModelUnavailable, type Completion } from '../../lib/ai-model/chat-model';
import { takeCitations } from '../../lib/ai-model/prompt-text';
import { messageText, modelHtml } from '../../lib/html/message-body';
import { log } from '../../lib/log';
import { allowanceRefusal, usageHeaders } from '../ai/allowance';
import { aiDraftsResource } from './aidrafts.resource';
import { liveVisibleTickets } from '../tickets/ticket-visibility';
import { readDraftContext } from './draft-context';
import { DRAFT_MAX_TOKENS, draftPrompt } from './draft-prompt';

const s = schemasOf(aiDraftsResource);

const draftBody = writableRecord(
  {
    instructions: z
      .string()
      .trim()
      .max(1_000)
      .optional()
      .meta({ description: 'what the draft should do, in the teammate\'s words: "shorter, apologise for the delay"' }),
    tone: z.enum(AI_DRAFT_TONES).optional().meta({ description: '`friendly` (default), `formal` or `concise`' }),
  },
  [],
).meta({ id: 'AIDraftCreate' });

/** The name the batch hands the new draft's id on by. */
const DRAFT = 'aidraft_id';

/**
 * `POST /v2/tickets/{id}/aidrafts.json`: the AI drafts a reply to the customer's latest message
 * (docs/ai.md, "Reply drafts"). One round trip reads everything the draft is written from and the
 * allowance; the model is called only when the caller sees the ticket and the allowance is not
 * used up; the draft and its `created` event are written in a second. Nothing is billed: the
 * reply a teammate sends from it is.
 */
export const createTicketAiDraftRoute = defineRoute(
  {
    method: 'post',
    path: '/v2/tickets/{id}/aidrafts.json',
    tag: 'AIDrafts',
    operationId: 'createTicketAiDraft',
    roles: AGENTS,
    summary: "Draft a reply to the ticket's latest customer message with the AI",
    description:
      "The AI drafts a reply to the customer's latest message, written from the ticket's thread (its drafts and other tickets never), the customer's name, the inbox's signature (which mail adds below the reply, so the draft has none) and the installation's published help-doc articles that match the message (private ones too: a teammate reads the draft first); the articles it used are its `sources`. `instructions` and `tone` steer it. Answers 201 with the draft, which is never sent by itself: send it (as it is or edited) as a reply with `aiDraft: {id}`, and that reply is one unit of the AI allowance, once per draft. The headers `X-AI-Usage-State`, `X-AI-Remaining` and `X-AI-Reset-Date` say where the allowance stands. Without the AI add-on, or with its allowance used up, a 402 naming `aiusage.allowance` and when it starts again; a ticket the caller does not see a 404; the model not answering (after retries) or not configured a 503, and nothing is written. Records the draft's `created` event (history `ticket.aidraft`). See docs/ai.md.",
    request: {
      params: idParams,
      body: { required: false, content: { 'application/json': { schema: draftBody } } },
    },
    example: { body: { instructions: 'shorter, apologise for the delay', tone: 'friendly' } },
    responses: {
      201: jsonResponse('the draft', s.one),
      402: errorResponse('no AI add-on (allowance 0), or its allowance used up until `resetDate`'),
      503: errorResponse(
        'the model did not answer after its retries, or no model is configured: try again after `Retry-After`',
      ),
    },
  },
  async (c) => {
    const who = c.var.principal;
    const { id } = c.req.valid('param');
    const wishes = c.req.valid('json');
    const context = await readDraftContext(c.var.db, who, id);
    if (!context) throw ApiError.notFound('id', `ticket ${id} not found`);
    const refusal = allowanceRefusal(context.usage);
    if (refusal) throw refusal;
    const config = modelConfig(c.env);
    if (!config)
      throw new ApiError(503, [
        { code: 'notConfigured', source: 'AI_BASE_URL', detail: 'no AI model is configured on this server' },
      ]);
    let answer: Completion;
    try {
      answer = await complete(config, draftPrompt(context, wishes), { maxTokens: DRAFT_MAX_TOKENS });
    } catch (error) {
      if (!(error instanceof ModelUnavailable)) throw error;
      log('warn', 'the AI model is unavailable', { route: c.var.route ?? null, why: error.message });
      throw modelDown(error.retryAfterSeconds);
    }
    const { text, cited } = takeCitations(
      answer.text,
      context.articles.map((a) => a.id),
    );
    // the model's words are sanitized as any message is, images and media dropped, before they are stored or shown
    const html = modelHtml(text);
    const textBody = messageText(html);
    if (!textBody.trim()) throw modelDown(5);
    // the ticket may have gone, or left the caller's sight, while the model wrote: then nothing is
    // written, and the read-back finds nothing
    const insert = sql`INSERT INTO ${aiDrafts} (installation_id, ticket_id, reply_to_id, html_body, text_body, sources, model, instructions, tone, created_by, updated_by)
      SELECT ${who.installationId}, ${tickets.id}, ${context.replyToId}, ${html}, ${textBody},
             ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(cited)}::jsonb)::int), ${answer.model},
             ${wishes.instructions || null}, ${wishes.tone ?? null}, ${who.userId}, ${who.userId}
      FROM ${tickets} WHERE ${tickets.id} = ${id} AND ${tickets.installationId} = ${who.installationId} AND ${liveVisibleTickets(who)}
      RETURNING id, ticket_id`;
    const created = withEvents(
      insert,
      who,
      'aidrafts',
      'created',
      sql`jsonb_build_object('ticket', jsonb_build_object('id', r.ticket_id, 'type', 'tickets'))`,
      undefined,
      remember(DRAFT, sql`id`),
    );
    const body = await sendWithReadBack(
      c.var.db,
      aiDraftsResource,
      who,
      [created],
      sql`coalesce(${recalledIfAny(DRAFT)}, 0)`,
      [],
    );
    if (!body) throw ApiError.notFound('id', `ticket ${id} not found`);
    return c.json(body, 201, usageHeaders(context.usage));
  },
);

/** The 503 of a model that did not answer (or answered nothing): nothing was drafted, nothing billed. */
function modelDown(retryAfterSeconds: number): ApiError {
  return new ApiError(
    503,
    [
      {
        code: 'unavailable',
        source: 'model',
        detail: 'the AI model did not answer: nothing was drafted or billed; try again',
      },
    ],
    { 'Retry-After': String(retryAfterSeconds) },
  );
}
