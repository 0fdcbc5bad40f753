// What the Worker needs to reach the local stack, and the environment that keeps wrangler offline.
import type { LocalStack } from './stack';

/** Without these wrangler tries to reach the internet. */
export const quietWranglerEnv = {
  WRANGLER_SEND_METRICS: 'false',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  WRANGLER_HIDE_BANNER: 'true',
};

/** The project-management token key of local runs and tests only: never a deployed secret. */
export const DEV_PM_TOKEN_KEY = 'KwXxkNG7HBFwFLgckMQLiCFxVigh3EN/yHgHEcIda0A=';

/** The rooms' webhook signing secret of local runs and tests only: never a deployed secret. */
export const DEV_ROOM_WEBHOOK_SECRET = 'local-room-webhook-secret-not-for-production';

/** The operators' token of local runs and tests only (`/operator/...`, docs/operations.md): never a deployed secret. */
export const DEV_OPERATOR_TOKEN = 'local-operator-token-not-for-production';

/**
 * The Worker's variables for the local stack: the database and the Neon driver's two local
 * stand-ins. The limits are left to the Worker's defaults, production's (120 requests a minute a
 * teammate, 20 failed authentications and 600 public reads a minute an address, 120 room messages
 * a minute a participant): `npm run dev` runs with these alone, so what a newcomer tries is what a
 * deployment does. The tests and benchmarks add `MACHINE_LIMITS`.
 */
export function workerVars(
  stack: Pick<LocalStack, 'databaseUrl' | 'wsProxyPort' | 'sqlHttpUrl'>,
): Record<string, string> {
  return {
    ENVIRONMENT: 'development',
    DATABASE_URL: stack.databaseUrl,
    NEON_LOCAL_WS_PROXY: `127.0.0.1:${stack.wsProxyPort}`,
    NEON_LOCAL_SQL_HTTP: stack.sqlHttpUrl,
    PM_TOKEN_KEY: DEV_PM_TOKEN_KEY,
    ROOM_WEBHOOK_SECRET: DEV_ROOM_WEBHOOK_SECRET,
    OPERATOR_TOKEN: DEV_OPERATOR_TOKEN,
    // webhook receivers of local runs and tests listen on loopback, over http, and retries come quickly
    WEBHOOK_ALLOW_HTTP: '1',
    WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
    WEBHOOK_RETRY_BASE_SECONDS: '1',
    // inboxes receive at <localPart>@<siteName>.mail.localhost (POST /cdn-cgi/handler/email)
    MAIL_DOMAIN: 'mail.localhost',
    // links in mail (the satisfaction survey's) point at `npm run dev`'s address
    PUBLIC_URL: `http://127.0.0.1:${process.env.PORT ?? 8787}`,
  };
}

/**
 * The limits of the Worker the tests and benchmarks serve (`scripts/worker-under-test.ts`), never
 * dev's: they call far faster than a person (and fail to authenticate on purpose, all from
 * 127.0.0.1), so the defaults are out of their way. An installation's own limit
 * (`/v2/ratelimit.json`) still applies; test/ratelimit/strict.test.ts and dev-limits.test.ts serve
 * Workers with the real ones.
 */
export const MACHINE_LIMITS: Record<string, string> = {
  RATE_LIMIT_PER_MINUTE: '1000000',
  AUTH_FAILURES_PER_MINUTE: '1000000',
  PUBLIC_READS_PER_MINUTE: '1000000',
  ROOM_MESSAGES_PER_MINUTE: '1000000',
};
