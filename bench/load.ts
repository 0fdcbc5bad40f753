// The load tool: autocannon with a fixed number of connections, run in a child process
// (bench/load-child.ts), each request to a path picked at random from the given ones (a GET,
// or a POST of a body made new for each request).
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { coresUsed, snapshot, type CpuUse } from './cpu';

export interface LoadRequest {
  url: string;
  paths: string[];
  headers: Record<string, string>;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** POST instead of GET: each request's body is this text with `{n}` replaced by a number new to the load process */
  postBody?: string;
  /** keep every 2xx response's latency in the result (`latencies`), to pool runs */
  keepLatencies?: boolean;
}

export interface LoadResult {
  seconds: number;
  requests: number;
  /** responses a second, any status */
  rps: number;
  /** latency percentiles of 2xx responses, ms */
  p50: number;
  p99: number;
  mean: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** autocannon's own figures, for reference (its latency histogram has 1 ms resolution) */
  autocannon: { p50: number; p99: number; requestsPerSecondAverage: number };
  /** cores used on average during the measured seconds, by process group */
  cpu: CpuUse;
  /** every 2xx latency, ms, ascending: only with `keepLatencies` */
  latencies?: number[];
}

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'load-child.ts');

export function load(job: LoadRequest): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = fork(child, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let start = snapshot();
    let result: LoadResult | undefined;
    worker.on('message', (message: { measuring?: true; result?: Omit<LoadResult, 'cpu'> }) => {
      if (message.measuring) start = snapshot();
      // Taken before the child exits, so that its own CPU time is still there to read.
      if (message.result) result = { ...message.result, cpu: coresUsed(start, snapshot()) };
    });
    worker.once('error', reject);
    worker.once('exit', (code) =>
      result ? resolve(result) : reject(new Error(`the load process exited with ${code} and no result`)),
    );
    worker.send(job);
  });
}
