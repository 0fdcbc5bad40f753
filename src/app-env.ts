import type { Principal } from './auth/principal';
import type { Database, DatabaseEnv } from './db/client';

/** The Worker's bindings, as `wrangler.toml` declares them. */
export interface Env extends DatabaseEnv {
  /** `production` turns off nothing yet; reported by the health check. */
  ENVIRONMENT?: string;
  CONVERSATION_ROOMS: DurableObjectNamespace;
  JOBS: Queue<import('./jobs/queue').JobMessage>;
  /** Secret: base64 of 32 bytes, the AES-GCM key of the project-management token (src/lib/crypto). */
  PM_TOKEN_KEY?: string;
  /** Secret: signs the rooms' deliveries to `POST /v2/conversationmessages/webhooks.json`. */
  ROOM_WEBHOOK_SECRET?: string;
  /** Where rooms deliver messages; unset: this Worker's own endpoint, called in the room's isolate. */
  ROOM_WEBHOOK_URL?: string;
}

export interface AppEnv {
  Bindings: Env;
  Variables: { principal: Principal; db: Database };
}
