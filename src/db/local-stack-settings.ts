import { neonConfig } from '@neondatabase/serverless';

/** The variables that point the Neon driver at the local stack; production sets neither. */
export interface LocalStackVars {
  /** `host:port` of the WebSocket-to-TCP proxy in front of a plain Postgres. */
  NEON_LOCAL_WS_PROXY?: string;
  /** address of the SQL-over-HTTP stand-in for Neon's HTTP endpoint. */
  NEON_LOCAL_SQL_HTTP?: string;
}

/** Switches the driver to the local stand-ins when, and only when, the variables name them. */
export function applyLocalStackSettings(env: LocalStackVars): void {
  if (env.NEON_LOCAL_SQL_HTTP) {
    neonConfig.fetchEndpoint = env.NEON_LOCAL_SQL_HTTP;
  }
  if (env.NEON_LOCAL_WS_PROXY) {
    const proxy = env.NEON_LOCAL_WS_PROXY;
    neonConfig.wsProxy = (host, port) => `${proxy}/v2?address=${host}:${port}`;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineTLS = false;
    neonConfig.pipelineConnect = false;
  }
}
