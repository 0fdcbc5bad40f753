import { createApp } from './app';
import type { Env } from './app-env';
import type { JobMessage } from './jobs/job-message';
import { emailHandler } from './jobs/email';
import { queueHandler } from './jobs/queue';
import { scheduledHandler } from './jobs/scheduled';
import { modules } from './module-list';
import { setSettleHook } from './db/client';
import { inStatementHook } from './events/in-statement';
import { atServiceAddress } from './http/platform-address';
import { registerSubscribers } from './events/subscriptions';
import { setAssistantContextReader } from './realtime/assistant-port';
import { readAssistantContext } from './resources/conversations/read-assistant-context';

export { ConversationRoom } from './realtime/conversation-room';
export { RateLimiter } from './ratelimit/limiter';

const subscribers = modules.flatMap((module) => module.subscribers);
registerSubscribers(subscribers);
setSettleHook(inStatementHook(subscribers));
setAssistantContextReader(readAssistantContext);
const app = createApp(modules);

export default {
  // the platform's address layout (`/desk/api/v2/...`) readdressed once, before routing
  fetch: (request, env, ctx) => app.fetch(atServiceAddress(request), env, ctx),
  queue: queueHandler(modules),
  scheduled: scheduledHandler(modules),
  email: emailHandler(modules),
} satisfies ExportedHandler<Env, JobMessage>;
