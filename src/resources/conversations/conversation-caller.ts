import { and, eq } from 'drizzle-orm';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../app-env';
import { AGENTS, requireRole } from '../../auth/access';
import { invalidCredential, noCredential, presentedTeammate } from '../../auth/authenticate';
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
  // a contact form's token is looked up as one first: it has no credential's form, so the widget's
  // request makes no teammate look-up (one exchange fewer), and whatever else is sent is a credential's to answer
  const sent = presentedSecret(c.req.header('authorization'));
  const form = sent !== undefined && FORM_TOKEN.test(sent) ? await contactFormOf(c, sent) : undefined;
  if (form) return form;
  const { secret, principal } = await presentedTeammate(c);
  if (!secret) throw noCredential('send an API key, or a contact form token, as "Authorization: Bearer <token>"');
  if (principal) {
    requireRole(principal, AGENTS);
    return { kind: 'agent', principal };
  }
  throw invalidCredential();
}

/** What a contact form's token looks like (`contactforms/form-token.ts`: 24 random bytes, base64url); no credential does. */
const FORM_TOKEN = /^[A-Za-z0-9_-]{32}$/;

/** The widget caller of the live form with this token; undefined when no live form has it; 403 while its live chat is off. */
async function contactFormOf(c: Context<AppEnv>, token: string): Promise<ConversationCaller | undefined> {
  const [form] = await c.var.db.http
    .select({
      id: contactForms.id,
      installationId: contactForms.installationId,
      inboxId: contactForms.inboxId,
      live: contactForms.isLiveChatEnabled,
    })
    .from(contactForms)
    .where(and(eq(contactForms.token, token), eq(contactForms.state, 'active')));
  if (!form) return undefined;
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
