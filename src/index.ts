import { createApp } from './app';
import type { Env } from './app-env';
import { consumeJobs, type JobMessage } from './jobs/queue';
import { runScheduled } from './jobs/scheduled';

export { ConversationRoom } from './realtime/conversation-room';

const app = createApp();

export default {
  fetch: app.fetch,
  queue: consumeJobs,
  scheduled: runScheduled,
} satisfies ExportedHandler<Env, JobMessage>;
