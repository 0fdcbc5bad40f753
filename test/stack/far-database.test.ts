// HELPDESK_DB_RTT_MS puts the local stack's database far away: through the raw Neon driver, each
// exchange with Postgres costs the round trip (a connection's opening included), and unset nothing
// is delayed. Bounds are lower bounds plus generous margins, for a loaded 2-core machine.
import { Pool, neon, neonConfig } from '@neondatabase/serverless';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ws from 'ws';
import { startLocalStack, type LocalStack } from '../../scripts/stack/index.js';

const VARIABLE = 'HELPDESK_DB_RTT_MS';
const RTT = 100;
/** What the machine may add on top of the delay in one measurement's median. */
const MARGIN = 80;
const SAMPLES = 5;

const asked = process.env[VARIABLE];
/** The stack started with the variable set to `value` (undefined: unset), then as it was. */
async function stackWith(value: string | undefined): Promise<LocalStack> {
  if (value === undefined) delete process.env[VARIABLE];
  else process.env[VARIABLE] = value;
  try {
    return await startLocalStack({ purpose: 'test' });
  } finally {
    if (asked === undefined) delete process.env[VARIABLE];
    else process.env[VARIABLE] = asked;
  }
}

let near: LocalStack;
let far: LocalStack;
beforeAll(async () => {
  near = await stackWith(undefined);
  far = await stackWith(String(RTT));
  neonConfig.webSocketConstructor = ws;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
}, 60_000);
afterAll(async () => {
  await near?.stop();
  await far?.stop();
});

/** The driver pointed at one stack's stand-ins (neonConfig is global; the tests run one at a time). */
function through(stack: LocalStack) {
  neonConfig.fetchEndpoint = stack.sqlHttpUrl;
  neonConfig.wsProxy = (host, port) => `127.0.0.1:${stack.wsProxyPort}/v2?address=${host}:${port}`;
  return stack;
}

/** Each sample's duration in ms, after one unmeasured run (which opens the HTTP keep-alive connection). */
async function timings(run: () => Promise<unknown>): Promise<number[]> {
  await run();
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return times;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const httpQuery = (stack: LocalStack) => () => neon(stack.databaseUrl)`SELECT 1 AS one`;
/** A new WebSocket connection (upgrade, startup, md5 password) and one query on it. */
const connectAndQuery = (stack: LocalStack) => async () => {
  const pool = new Pool({ connectionString: stack.databaseUrl });
  const start = performance.now();
  const client = await pool.connect();
  await client.query('SELECT $1::int AS one', [1]);
  const took = performance.now() - start;
  client.release();
  await pool.end();
  return took;
};
/** Only the connect and the query, not the pool's end. */
async function connectTimings(stack: LocalStack): Promise<number[]> {
  const once = connectAndQuery(stack);
  await once();
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) times.push(await once());
  return times;
}

describe('HELPDESK_DB_RTT_MS', () => {
  it('is what each stack says it runs with', () => {
    expect(near.databaseRttMs).toBe(0);
    expect(far.databaseRttMs).toBe(RTT);
  });

  it('a value that is not a round trip in ms stops the start, saying so', async () => {
    for (const bad of ['abc', '-5', '2001', '1e3', '100ms']) {
      await expect(stackWith(bad), bad).rejects.toThrow(`${VARIABLE} is the database's round-trip time`);
    }
  });

  it('unset, nothing is delayed: a query over HTTP and a new connection with a query each take a few ms', async () => {
    through(near);
    const http = await timings(httpQuery(near));
    const connect = await connectTimings(near);
    console.log(
      `near: HTTP query median ${median(http).toFixed(1)} ms, connect + query median ${median(connect).toFixed(1)} ms`,
    );
    expect(median(http)).toBeLessThan(50);
    expect(median(connect)).toBeLessThan(RTT); // delayed, it would be 4 round trips
  });

  it('an HTTP query, one query or a batch, is one round trip', async () => {
    const nearQuery = median(await timings(httpQuery(through(near))));
    const farTimes = await timings(httpQuery(through(far)));
    const q = neon(far.databaseUrl);
    const batchTimes = await timings(() => q.transaction([q`SELECT 1`, q`SELECT 2`, q`SELECT 3`]));
    console.log(
      `far (${RTT} ms): HTTP query median ${median(farTimes).toFixed(1)} ms, batch of 3 ${median(batchTimes).toFixed(1)} ms; near ${nearQuery.toFixed(1)} ms`,
    );
    for (const t of [...farTimes, ...batchTimes]) expect(t).toBeGreaterThanOrEqual(RTT);
    expect(median(farTimes) - nearQuery).toBeLessThan(RTT + MARGIN);
    expect(median(batchTimes) - nearQuery).toBeLessThan(RTT + MARGIN);
  });

  it("a new WebSocket connection pays a round trip for its opening and each of Postgres's exchanges", async () => {
    // the upgrade (standing for TCP, TLS and WebSocket handshakes), the startup message answered by
    // the md5 challenge, the password answered by ReadyForQuery, then the query: 4. (A DATABASE_URL
    // server may authenticate otherwise; counted from the upgrade, the startup and the query: 3.)
    const exchanges = process.env.DATABASE_URL ? 3 : 4;
    const nearConnect = median(await connectTimings(through(near)));
    const farTimes = await connectTimings(through(far));
    console.log(
      `far (${RTT} ms): connect + query median ${median(farTimes).toFixed(1)} ms; near ${nearConnect.toFixed(1)} ms`,
    );
    for (const t of farTimes) expect(t).toBeGreaterThanOrEqual(exchanges * RTT);
    expect(median(farTimes) - nearConnect).toBeLessThan(4 * RTT + 2 * MARGIN);
  });

  it('a far connection keeps messages in their order: a startup message sent in ten pieces is understood', async () => {
    const url = new URL(far.databaseUrl);
    const params = Buffer.from(`user\0${url.username}\0database\0${url.pathname.slice(1)}\0\0`);
    const startup = Buffer.alloc(8 + params.length);
    startup.writeInt32BE(startup.length, 0);
    startup.writeInt32BE(196608, 4); // protocol 3.0
    params.copy(startup, 8);
    const socket = new ws(`ws://127.0.0.1:${far.wsProxyPort}/v2?address=${url.hostname}:${url.port}`);
    try {
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      const answer = new Promise<Buffer>((resolve) => socket.once('message', (data: Buffer) => resolve(data)));
      const piece = Math.ceil(startup.length / 10);
      for (let at = 0; at < startup.length; at += piece) socket.send(startup.subarray(at, at + piece));
      const reply = await answer;
      // an authentication request ('R'; the embedded server's is md5, code 5), not an ErrorResponse ('E')
      expect(String.fromCharCode(reply[0]!)).toBe('R');
      if (!process.env.DATABASE_URL) expect(reply.readInt32BE(5)).toBe(5);
    } finally {
      socket.terminate();
    }
  }, 10_000); // out of order, Postgres would wait for the rest of a packet whose length is garbled
});
