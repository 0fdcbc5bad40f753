// One load run, in a process of its own so that the load generator never shares an event loop
// with the local stack's stand-ins: a warm-up whose figures are dropped, then the measurement.
// Driven by bench/load.ts over IPC.
import autocannon from 'autocannon';
import type { LoadRequest, LoadResult } from './load';

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Numbers the POST bodies of this process: warm-up and measurement never send the same one. */
let sent = 0;

async function run(job: LoadRequest, seconds: number): Promise<Omit<LoadResult, 'cpu'>> {
  const latencies: number[] = [];
  const pick = () => job.paths[Math.floor(Math.random() * job.paths.length)]!;
  const template = job.postBody;
  const instance = autocannon({
    url: job.url,
    connections: job.connections,
    duration: seconds,
    headers: template === undefined ? job.headers : { ...job.headers, 'content-type': 'application/json' },
    requests: [
      template === undefined
        ? { method: 'GET', setupRequest: (request) => ({ ...request, path: pick() }) }
        : {
            method: 'POST',
            setupRequest: (request) => ({ ...request, path: pick(), body: template.replaceAll('{n}', String(++sent)) }),
          },
    ],
  });
  // Exact latencies (autocannon's own histogram rounds to whole milliseconds); 2xx only, as autocannon does.
  instance.on('response', (_client, status, _bytes, ms) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const r = await instance;
  latencies.sort((a, b) => a - b);
  return {
    seconds: r.duration,
    requests: r.requests.total,
    rps: r.requests.total / r.duration,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    mean: latencies.reduce((sum, v) => sum + v, 0) / (latencies.length || 1),
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, s.count])),
    autocannon: { p50: r.latency.p50, p99: r.latency.p99, requestsPerSecondAverage: r.requests.average },
    ...(job.keepLatencies ? { latencies } : {}),
  };
}

process.once('message', async (job: LoadRequest) => {
  if (job.warmupSeconds > 0) await run(job, job.warmupSeconds);
  process.send!({ measuring: true });
  process.send!({ result: await run(job, job.durationSeconds) }, () => process.exit(0));
});
