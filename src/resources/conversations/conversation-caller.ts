import { and, eq } from 'drizzle-orm';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../app-env';
import { AGENTS, requireRole } from '../../auth/access';
import { principalOf } from '../../auth/authenticate';
import { presentedSecret } from '../../auth/credentials';
import type { Principal } from '../../auth/principal';
import { contactForms } from '../../db/schema';
import { ApiError } from '../../http/errors';

/** Who starts a conversation: a teammate with a seat, or a visitor through a contact form's chat widget. */
export type ConversationCaller =
  | { kind: 'agent'; principal: Principal }
  | { kind: 'widget'; installationId: number; contactFormId: number; inboxId: number | null };

/**
 * `Authorization: Bearer <API key or OAuth token>` for agents; `Bearer <contact form token>` for
 * the widget, accepted only while the form's live chat is enabled.
 */
export async function conversationCaller(c: Context<AppEnv>): Promise<ConversationCaller> {
  const secret = presentedSecret(c.req.header('authorization'));
  if (!secret) throw ApiError.unauthorized('send an API key, or a contact form token, as "Authorization: Bearer <token>"');
  const principal = await principalOf(c.var.db, secret);
  if (principal) {
    requireRole(principal, AGENTS);
    return { kind: 'agent', principal };
  }
  const [form] = await c.var.db.http
    .select({ id: contactForms.id, installationId: contactForms.installationId, inboxId: contactForms.inboxId, live: contactForms.isLiveChatEnabled })
    .from(contactForms)
    .where(and(eq(contactForms.token, secret), eq(contactForms.state, 'active')));
  if (!form) throw ApiError.unauthorized('the credential is not valid');
  if (!form.live) throw ApiError.forbidden('live chat is not enabled on this contact form');
  return { kind: 'widget', installationId: form.installationId, contactFormId: form.id, inboxId: form.inboxId };
}

const callers = new WeakMap<Request, ConversationCaller>();

/** Finds the caller before the body is validated, so a request without a valid credential is a 401 whatever it sends. */
export const identifyConversationCaller: MiddlewareHandler<AppEnv> = async (c, next) => {
  callers.set(c.req.raw, await conversationCaller(c));
  await next();
};

/** The caller `identifyConversationCaller` found for this request. */
export function callerOf(c: Context<AppEnv>): ConversationCaller {
  const caller = callers.get(c.req.raw);
  if (!caller) throw new Error('identifyConversationCaller did not run');
  return caller;
}
