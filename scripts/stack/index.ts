// The local stack: Postgres (embedded unless DATABASE_URL is set) with migrations applied, the
// WebSocket proxy for the Neon driver's Pool, and the SQL-over-HTTP stand-in for neon().
// HELPDESK_DB_RTT_MS puts the database that many ms away from the Worker (scripts/stack/distance.ts).
import { databaseRttMs, DB_RTT_VARIABLE } from './distance.js';
import { migrate } from './migrate.js';
import { startPostgres, type Purpose } from './postgres.js';
import { startSqlOverHttp, type SqlOverHttpStats } from './sql-over-http.js';
import { startWsProxy, type WsProxyStats } from './ws-proxy.js';

export interface LocalStack {
  databaseUrl: string;
  wsProxyPort: number;
  sqlHttpUrl: string;
  /** The round trip each exchange with the database costs on top of loopback (HELPDESK_DB_RTT_MS; 0 when near). */
  readonly databaseRttMs: number;
  /** What the two stand-ins have carried since start: the Worker's database round trips. */
  stats(): { sqlHttp: SqlOverHttpStats; wsProxy: WsProxyStats };
  stop(): Promise<void>;
  /**
   * Tests only: the Worker loses its way to the database (both stand-ins stop, connections
   * refused, as when the database is unreachable) until `restoreDatabase`, which brings them
   * back on the same ports. Postgres itself stays up for the test to look at.
   */
  cutDatabase(): Promise<void>;
  restoreDatabase(): Promise<void>;
  /**
   * Benchmarks: moves the database `ms` away (0: near), restarting both stand-ins on the same
   * ports as `restoreDatabase` does; connections open at that moment are dropped, and the counts
   * of `stats()` start again from 0.
   */
  setDatabaseRtt(ms: number): Promise<void>;
}

/** A round trip given in code, held to the variable's bounds. */
const checkedRtt = (ms: number) => databaseRttMs({ [DB_RTT_VARIABLE]: String(ms) });

/** `rttMs`: the database's round trip, instead of HELPDESK_DB_RTT_MS's. */
export async function startLocalStack(opts: { purpose: Purpose; rttMs?: number }): Promise<LocalStack> {
  // before anything starts: a bad value starts nothing
  let rttMs = opts.rttMs === undefined ? databaseRttMs() : checkedRtt(opts.rttMs);
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
    let wsProxy = await startWsProxy({ rttMs });
    let sqlHttp = await startSqlOverHttp({ databaseUrl: postgres.url, rttMs });
    const { port: wsProxyPort } = wsProxy;
    const { port: sqlHttpPort, url: sqlHttpUrl } = sqlHttp;
    const stopStandIns = async () => {
      await wsProxy.stop();
      await sqlHttp.stop();
    };
    stops.push(stopStandIns);
    const restoreDatabase = async () => {
      wsProxy = await startWsProxy({ port: wsProxyPort, rttMs });
      sqlHttp = await startSqlOverHttp({ databaseUrl: postgres.url, port: sqlHttpPort, rttMs });
    };
    const setDatabaseRtt = async (ms: number) => {
      const checked = checkedRtt(ms);
      await stopStandIns();
      rttMs = checked;
      await restoreDatabase();
    };
    const stats = () => ({ sqlHttp: sqlHttp.stats(), wsProxy: wsProxy.stats() });
    return {
      databaseUrl: postgres.url,
      wsProxyPort,
      sqlHttpUrl,
      get databaseRttMs() {
        return rttMs;
      },
      stats,
      stop,
      cutDatabase: stopStandIns,
      restoreDatabase,
      setDatabaseRtt,
    };
  } catch (e) {
    await stop().catch(() => {});
    throw e;
  }
}
