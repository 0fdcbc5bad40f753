import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { resourceRoutes } from '../engine/routes';
import { conversationMessagesResource } from './conversationmessages.resource';
import { historyRoute } from './history';
import { webhooksRoute } from './webhooks';

/** Public: the history by token, and the rooms' signed deliveries. */
export function publicConversationMessagesRoutes(app: Hono<AppEnv>): void {
  historyRoute(app);
  webhooksRoute(app);
}

/** `/v2/conversationmessages...`: list, PATCH, DELETE, bulk update and bulk delete. */
export function conversationMessagesRoutes(app: Hono<AppEnv>): void {
  resourceRoutes(app, conversationMessagesResource);
}
