import type { Principal } from './auth/principal';
import type { Database, DatabaseEnv } from './db/client';
import type { JobMessage } from './jobs/job-message';
import type { ModelEnv } from './lib/ai-model/chat-model';
import type { RateLimiter } from './ratelimit/limiter';

/** The Worker's bindings, as `wrangler.toml` declares them. */
export interface Env extends DatabaseEnv, ModelEnv {
  /** `production` turns off nothing yet; reported by the health check. */
  ENVIRONMENT?: string;
  CONVERSATION_ROOMS: DurableObjectNamespace;
  /** One request counter per installation (src/ratelimit). */
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  /** A teammate's requests a minute where the installation sets none (120 when unset). */
  RATE_LIMIT_PER_MINUTE?: string;
  /** Failed authentications a client address may make a minute before its look-ups are refused (20 when unset). */
  AUTH_FAILURES_PER_MINUTE?: string;
  /** Requests without a credential (the public help centre) a client address may make a minute (600 when unset). */
  PUBLIC_READS_PER_MINUTE?: string;
  /** Messages a participant may send a room a minute (120 when unset). */
  ROOM_MESSAGES_PER_MINUTE?: string;
  /** `off` switches the rate limits off (the limiter benchmark's baseline); on otherwise. */
  RATE_LIMITS?: string;
  /** This Worker, bound to itself: the rooms deliver messages to its webhooks endpoint without a public round trip. */
  SELF: Fetcher;
  JOBS: Queue<JobMessage>;
  /** Webhook deliveries' own queue (`webhooks.deliver` messages), read by the same consumer. */
  WEBHOOKS: Queue<JobMessage>;
  /** Outgoing mail's own queue (`mail.send` messages), read by the same consumer. */
  MAIL_OUT: Queue<JobMessage>;
  /** The first wait in seconds before a queue message whose consumer failed is delivered again (2 when unset); each later one doubles, up to 5 minutes. */
  JOB_RETRY_BASE_SECONDS?: string;
  /** Workers Analytics Engine: one data point per request (src/pipeline/request-metrics.ts); absent, none is written. */
  REQUEST_METRICS?: AnalyticsEngineDataset;
  /** Secret: the operators' bearer token for `/operator/...` (dead letters); unset, those routes answer 403. */
  OPERATOR_TOKEN?: string;
  /** Email Service's send binding (`[[send_email]]`): replies and auto-replies leave through it (src/resources/mail/outbound). */
  EMAIL?: SendEmail;
  /** The static assets (`[assets]`: the widget's script, the reference page's script), served before the Worker runs; its routes for them read them here. */
  ASSETS: Fetcher;
  /** Uploaded files: thread entries' attachments (src/resources/files). */
  FILES: R2Bucket;
  /** Secret: base64 of 32 bytes, the AES-GCM key of the project-management token (src/lib/crypto). */
  PM_TOKEN_KEY?: string;
  /** Secret: signs the rooms' deliveries to `POST /v2/conversationmessages/webhooks.json`. */
  ROOM_WEBHOOK_SECRET?: string;
  /** `off` writes no events (an operator's switch, and the events benchmark's baseline); on otherwise. */
  WRITE_EVENTS?: string;
  /** Where rooms deliver messages; unset: this Worker's own endpoint, called in the room's isolate. */
  ROOM_WEBHOOK_URL?: string;
  /** Local stack only: `1` lets webhook endpoints be `http` addresses. */
  WEBHOOK_ALLOW_HTTP?: string;
  /** Local stack only: host literals webhook endpoints may name though private (the tests' receivers on `127.0.0.1`). */
  WEBHOOK_ALLOWED_PRIVATE_HOSTS?: string;
  /** The DNS-over-HTTPS resolver endpoints' names are checked with; Cloudflare's when unset. */
  DNS_OVER_HTTPS_URL?: string;
  /** The first retry's wait in seconds (10 when unset); each later one doubles, up to an hour. */
  WEBHOOK_RETRY_BASE_SECONDS?: string;
  /** The deployment's mail domain: an inbox receives at `<localPart>@<siteName>.<MAIL_DOMAIN>` (src/resources/mail). */
  MAIL_DOMAIN?: string;
  /** Whose `Authentication-Results` vouch for a reply's sender (`mx.cloudflare.net`, Email Routing's, when unset). */
  MAIL_AUTHSERV_ID?: string;
  /** The largest inbound message taken, in bytes (25 MiB, Email Routing's own limit, when unset). */
  MAIL_MAX_BYTES?: string;
  /** The API's address as customers reach it (`https://api.example.com`): links in mail (the satisfaction survey's) start with it; unset, mail carries none. */
  PUBLIC_URL?: string;
  /** The first wait in seconds before an outgoing message is tried again (60 when unset); each later one doubles, up to an hour. */
  MAIL_RETRY_BASE_SECONDS?: string;
}

export interface AppEnv {
  Bindings: Env;
  Variables: {
    /** the caller, once authenticated (absent on public routes) */
    principal: Principal;
    db: Database;
    requestId: string;
    /** the matched route's path as the document writes it, for the log */
    route: string;
    /** a JSON body's exact text, once read (`jsonBodyText`) */
    bodyText: string | undefined;
    /** the header naming the body properties ignored, once the body is validated (`ignored-properties.ts`) */
    ignoredProperties: string | undefined;
  };
}
