// The Worker as tests and benchmarks run it: the bundle `wrangler deploy` would upload, served
// by workerd through Miniflare with the bindings of wrangler.toml and the local stack's vars, and
// limits of the machines' own (`MACHINE_LIMITS`), not dev's.
import { execFileSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';
import type { LocalStack } from './stack';
import { MACHINE_LIMITS, quietWranglerEnv, workerVars } from './worker-vars';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Bundles the Worker exactly as a deploy would, into `outdir`; returns the entry module. `entry`
 * bundles another entry module with the same configuration (a test's Worker that wraps the service's).
 */
export function buildWorker(outdir: string, entry?: string): string {
  execFileSync('npx', ['wrangler', 'deploy', ...(entry ? [entry] : []), '--dry-run', '--outdir', outdir], {
    cwd: root,
    env: { ...process.env, ...quietWranglerEnv },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // wrangler names the bundle after its entry module
  return path.join(outdir, `${path.basename(entry ?? 'index.ts', path.extname(entry ?? 'index.ts'))}.js`);
}

/** What a Worker needs of the local stack: the database and the Neon driver's two local stand-ins. */
export type StackParts = Pick<LocalStack, 'databaseUrl' | 'wsProxyPort' | 'sqlHttpUrl'>;

export interface WorkerUnderTest {
  url: string;
  miniflare: Miniflare;
  stop(): Promise<void>;
}

/** What workerd prints, line by line: the Worker's structured log lines among them. */
export type LogLineHandler = (line: string, stream: 'stdout' | 'stderr') => void;

function eachLine(stream: Readable, handle: (line: string) => void): void {
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', handle);
}

/**
 * The handler when none is given: a request's log line (the Worker's JSON, level info) is read
 * and dropped, one a request would drown what runs it; anything else (warn and error lines, what
 * is not the Worker's JSON) is printed.
 */
export const dropRequestLines: LogLineHandler = (line, stream) => {
  try {
    const value: unknown = JSON.parse(line);
    if (value && typeof value === 'object' && (value as { level?: unknown }).level === 'info') return;
  } catch {
    // not JSON: printed
  }
  (stream === 'stderr' ? process.stderr : process.stdout).write(`[worker] ${line}\n`);
};

export interface ServeOptions {
  /** variables of its own, over the local stack's */
  vars?: Record<string, string>;
  /** production's limits, as `npm run dev` has them, instead of the tests' and benchmarks' (`MACHINE_LIMITS`) */
  productionLimits?: boolean;
  port?: number;
  /** each line workerd prints; `dropRequestLines` when not given */
  onLogLine?: LogLineHandler;
  /**
   * Where mail the Worker sends goes: the `EMAIL` binding becomes the stand-in
   * (`stack/mail-sender/stand-in.js`) that posts each message to this receiver
   * (`stack/mail-sender/receiver.ts`). Without it, Miniflare's own simulation logs them.
   */
  mailReceiverUrl?: string;
  /** workerd's V8 inspector on this port (a benchmark reads the isolate's heap through it: bench/isolate-heap.ts) */
  inspectorPort?: number;
  /**
   * The request metrics' Analytics Engine binding (`REQUEST_METRICS`): Miniflare's simulation,
   * which drops every point, when not given; `logged`, a stand-in (`stack/metrics-stand-in.js`)
   * that prints each point as a JSON log line (`{"message": "analytics data point", ...}`);
   * `absent`, no binding at all.
   */
  requestMetrics?: 'logged' | 'absent';
}

const MAIL_STAND_IN = 'mail-sender-stand-in';
const METRICS_STAND_IN = 'metrics-stand-in';
/** As wrangler.toml names the binding (`[[analytics_engine_datasets]]`). */
const METRICS_BINDING = 'REQUEST_METRICS';

/**
 * Serves a bundle of the service (`buildWorker`) in workerd through Miniflare: the bindings of
 * wrangler.toml and the local stack's variables. Several may serve the same bundle.
 */
export async function serveWorker(
  stack: StackParts,
  scriptPath: string,
  options: ServeOptions = {},
): Promise<WorkerUnderTest> {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(path.join(root, 'wrangler.toml'));
  const onLogLine = options.onLogLine ?? dropRequestLines;
  const worker: Record<string, unknown> = {
    ...(workerOptions as object),
    name: 'helpdesk-api',
    modules: true,
    scriptPath,
    bindings: {
      ...workerOptions.bindings,
      ...workerVars(stack),
      ...(options.productionLimits ? {} : MACHINE_LIMITS),
      ...options.vars,
    },
  };
  const workers = [worker];
  const wrapped: Record<string, unknown> = {};
  if (options.mailReceiverUrl) {
    delete worker.email;
    wrapped.EMAIL = { scriptName: MAIL_STAND_IN, bindings: { RECEIVER_URL: options.mailReceiverUrl } };
    workers.push({
      name: MAIL_STAND_IN,
      modules: true,
      scriptPath: path.join(root, 'scripts/stack/mail-sender/stand-in.js'),
    });
  }
  if (options.requestMetrics) {
    const datasets = { ...(worker.analyticsEngineDatasets as Record<string, { dataset: string }> | undefined) };
    const { dataset } = datasets[METRICS_BINDING] ?? { dataset: 'dataset' };
    delete datasets[METRICS_BINDING];
    worker.analyticsEngineDatasets = datasets;
    if (options.requestMetrics === 'logged') {
      wrapped[METRICS_BINDING] = { scriptName: METRICS_STAND_IN, bindings: { DATASET: dataset } };
      workers.push({
        name: METRICS_STAND_IN,
        modules: true,
        scriptPath: path.join(root, 'scripts/stack/metrics-stand-in.js'),
      });
    }
  }
  if (Object.keys(wrapped).length) worker.wrappedBindings = wrapped;
  const miniflare = new Miniflare({
    workers,
    host: '127.0.0.1',
    port: options.port ?? 0,
    ...(options.inspectorPort ? { inspectorPort: options.inspectorPort } : {}),
    // `POST /cdn-cgi/handler/email?from=&to=` hands a raw message to the email() handler, as `wrangler dev` does
    unsafeTriggerHandlers: true,
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      eachLine(stdout, (line) => onLogLine(line, 'stdout'));
      eachLine(stderr, (line) => onLogLine(line, 'stderr'));
    },
    // Durable Object storage, queues and caches stay in memory: each run starts clean.
  } as ConstructorParameters<typeof Miniflare>[0]);
  const url = (await miniflare.ready).toString().replace(/\/$/, '');
  return { url, miniflare, stop: () => miniflare.dispose() };
}

/** Bundles the Worker (or `entry`, `buildWorker`) into `outdir` and serves it (`serveWorker`). */
export async function startWorker(
  stack: StackParts,
  options: ServeOptions & { outdir: string; entry?: string },
): Promise<WorkerUnderTest & { scriptPath: string }> {
  Object.assign(process.env, quietWranglerEnv);
  const scriptPath = buildWorker(options.outdir, options.entry);
  const { outdir: _, entry: __, ...serve } = options;
  return { ...(await serveWorker(stack, scriptPath, serve)), scriptPath };
}
