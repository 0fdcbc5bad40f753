import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { resourceRoutes } from '../engine/routes';
import { conversationsResource } from './conversations.resource';
import { createConversationRoute } from './create';

/** Before the API-key middleware: the chat widget may start a conversation with a contact form's token. */
export function publicConversationsRoutes(app: Hono<AppEnv>): void {
  createConversationRoute(app);
}

/** `/v2/conversations...`: list, get, PATCH. */
export function conversationsRoutes(app: Hono<AppEnv>): void {
  resourceRoutes(app, conversationsResource);
}
