import { and, eq } from 'drizzle-orm';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../app-env';
import { AGENTS, requireRole } from '../../auth/access';
import { invalidCredential, noCredential, presentedTeammate } from '../../auth/authenticate';
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
  const { secret, principal } = await presentedTeammate(c);
  if (!secret) throw noCredential('send an API key, or a contact form token, as "Authorization: Bearer <token>"');
  if (principal) {
    requireRole(principal, AGENTS);
    return { kind: 'agent', principal };
  }
  const [form] = await c.var.db.http
    .select({ id: contactForms.id, installationId: contactForms.installationId, inboxId: contactForms.inboxId, live: contactForms.isLiveChatEnabled })
    .from(contactForms)
    .where(and(eq(contactForms.token, secret), eq(contactForms.state, 'active')));
  if (!form) throw invalidCredential();
  if (!form.live) throw ApiError.forbidden('live chat is not enabled on this contact form');
  return { kind: 'widget', installationId: form.installationId, contactFormId: form.id, inboxId: form.inboxId };
}

declare module 'hono' {
  interface ContextVariableMap {
    /** who starts a conversation, once `identifyConversationCaller` found them */
    conversationCaller: ConversationCaller;
  }
}

/** Finds the caller before the body is validated, so a request without a valid credential is a 401 whatever it sends. */
export const identifyConversationCaller: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set('conversationCaller', await conversationCaller(c));
  await next();
};

/** The caller `identifyConversationCaller` found for this request. */
export function callerOf(c: Context<AppEnv>): ConversationCaller {
  const caller = c.get('conversationCaller');
  if (!caller) throw new Error('identifyConversationCaller did not run');
  return caller;
}
