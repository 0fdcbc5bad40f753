// The local stack: Postgres (embedded unless DATABASE_URL is set) with migrations applied, the
// WebSocket proxy for the Neon driver's Pool, and the SQL-over-HTTP stand-in for neon().
import { migrate } from './migrate.js';
import { startPostgres, type Purpose } from './postgres.js';
import { startSqlOverHttp, type SqlOverHttpStats } from './sql-over-http.js';
import { startWsProxy, type WsProxyStats } from './ws-proxy.js';

export interface LocalStack {
  databaseUrl: string;
  wsProxyPort: number;
  sqlHttpUrl: string;
  /** What the two stand-ins have carried since start: the Worker's database round trips. */
  stats(): { sqlHttp: SqlOverHttpStats; wsProxy: WsProxyStats };
  stop(): Promise<void>;
}

export async function startLocalStack(opts: { purpose: Purpose }): Promise<LocalStack> {
  const stops: Array<() => Promise<void>> = [];
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      const errors: unknown[] = [];
      for (const s of stops.reverse()) await s().catch((e: unknown) => errors.push(e));
      if (errors.length) throw new AggregateError(errors, 'stopping the local stack failed');
    })());

  try {
    const postgres = await startPostgres(opts);
    stops.push(postgres.stop);
    await migrate(postgres.url);
    const wsProxy = await startWsProxy();
    stops.push(wsProxy.stop);
    const sqlHttp = await startSqlOverHttp({ databaseUrl: postgres.url });
    stops.push(sqlHttp.stop);
    const stats = () => ({ sqlHttp: sqlHttp.stats(), wsProxy: wsProxy.stats() });
    return { databaseUrl: postgres.url, wsProxyPort: wsProxy.port, sqlHttpUrl: sqlHttp.url, stats, stop };
  } catch (e) {
    await stop().catch(() => {});
    throw e;
  }
}
