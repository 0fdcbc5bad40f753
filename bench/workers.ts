// The three Workers under load, each bundled by wrangler as a deploy would and served by workerd
// through Miniflare on 127.0.0.1: the ceiling and the bare SQL Worker (bench/workers/), with
// the compatibility date of wrangler.toml, and the service itself (scripts/worker-under-test.ts).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';
import type { LocalStack } from '../scripts/stack';
import { buildWorker, serveWorker, startWorker } from '../scripts/worker-under-test';
import { quietWranglerEnv, workerVars } from '../scripts/worker-vars';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const buildRoot = path.join(root, '.wrangler', 'bench-build');

export interface RunningWorker {
  name: string;
  url: string;
  stop(): Promise<void>;
}

function runtimeOf(configPath: string) {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(configPath);
  // the queue consumers' settings, whatever the queue and its dead-letter queue are called (a bench Worker's batches must be the service's)
  const consumers = Object.values(
    (workerOptions as { queueConsumers?: Record<string, Record<string, unknown>> }).queueConsumers ?? {},
  ).map(({ deadLetterQueue: _named, ...settings }) => JSON.stringify(settings));
  return {
    workerOptions,
    date: workerOptions.compatibilityDate,
    flags: [...(workerOptions.compatibilityFlags ?? [])].sort(),
    consumers,
  };
}

/** The compatibility date and flags every bench Worker shares with the service. */
export function serviceRuntime(): { date: string | undefined; flags: string[] } {
  const { date, flags } = runtimeOf(path.join(root, 'wrangler.toml'));
  return { date, flags };
}

/** Bundles and serves one of bench/workers/ by its name (`ceiling`, `bare-sql`, `bare-webhooks`, `bare-mail`, `twin-mail`). */
async function startBenchWorker(
  name: string,
  bindings: Record<string, string>,
  options: { dropLogLines?: boolean; inspectorPort?: number } = {},
): Promise<RunningWorker> {
  const configPath = path.join(root, 'bench', 'workers', `${name}.wrangler.toml`);
  const { workerOptions, date, flags, consumers } = runtimeOf(configPath);
  const service = runtimeOf(path.join(root, 'wrangler.toml'));
  if (date !== service.date || flags.join() !== service.flags.join()) {
    throw new Error(
      `${configPath}: compatibility ${date} [${flags}] differs from wrangler.toml's ${service.date} [${service.flags}]`,
    );
  }
  if (consumers.some((consumer) => !service.consumers.includes(consumer))) {
    throw new Error(
      `${configPath}: queue consumer ${consumers.join()} differs from wrangler.toml's ${service.consumers.join()}`,
    );
  }
  const outdir = path.join(buildRoot, name);
  execFileSync('npx', ['wrangler', 'deploy', '--dry-run', '--outdir', outdir, '--config', configPath], {
    cwd: root,
    env: { ...process.env, ...quietWranglerEnv },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const miniflare = new Miniflare({
    ...(workerOptions as object),
    name: `bench-${name}`,
    modules: true,
    scriptPath: path.join(outdir, `${name}.js`),
    bindings,
    host: '127.0.0.1',
    port: 0,
    // `POST /cdn-cgi/handler/email` reaches an email() handler, as for the service (scripts/worker-under-test.ts)
    unsafeTriggerHandlers: true,
    ...(options.inspectorPort ? { inspectorPort: options.inspectorPort } : {}),
    // a Worker that logs a line a request: its lines read and dropped, its errors printed
    ...(options.dropLogLines
      ? { handleRuntimeStdio: (stdout: Readable, stderr: Readable) => (stdout.resume(), stderr.pipe(process.stderr)) }
      : {}),
  } as ConstructorParameters<typeof Miniflare>[0]);
  const url = (await miniflare.ready).toString().replace(/\/$/, '');
  return { name, url, stop: () => miniflare.dispose() };
}

export function startCeiling(): Promise<RunningWorker> {
  return startBenchWorker('ceiling', {});
}

/** The bare SQL Worker, reaching the database exactly as the service does (the same variables). */
export function startBareSql(stack: LocalStack, statements: unknown): Promise<RunningWorker> {
  return startBenchWorker('bare-sql', { ...workerVars(stack), BENCH_STATEMENTS: JSON.stringify(statements) });
}

/** The list-assembly benchmark's Worker, over the captured answers and the list (bench/workers/assemble.ts). */
export function startAssemble(
  bindings: { BENCH_ANSWERS: string; BENCH_LIST: string },
  inspectorPort?: number,
): Promise<RunningWorker> {
  return startBenchWorker('assemble', bindings, { dropLogLines: true, inspectorPort });
}

/** The mail benchmark's bare parser. */
export function startBareMail(): Promise<RunningWorker> {
  return startBenchWorker('bare-mail', {});
}

/**
 * The mail benchmark's fair twin: parses and writes a message's rows in one batch through the raw
 * driver, reaching the database as the service does, into the installation and inbox given.
 */
export function startTwinMail(stack: LocalStack, installationId: number, inboxId: number): Promise<RunningWorker> {
  return startBenchWorker('twin-mail', {
    ...workerVars(stack),
    BENCH_INSTALLATION: String(installationId),
    BENCH_INBOX: String(inboxId),
  });
}

/** The webhook benchmark's bare Queue producer and consumer. */
export function startBareWebhooks(): Promise<RunningWorker> {
  return startBenchWorker('bare-webhooks', {});
}

/** The service as a deploy bundles it; `inspectorPort` opens workerd's V8 inspector (bench/isolate-heap.ts). */
export async function startService(
  stack: LocalStack,
  options: { inspectorPort?: number } = {},
): Promise<RunningWorker> {
  // The service logs a line a request (src/pipeline/request-context.ts): read and dropped, not printed;
  // its errors are printed with BENCH_SERVICE_ERRORS=1, its warnings too with BENCH_SERVICE_ERRORS=warn.
  const printed =
    process.env.BENCH_SERVICE_ERRORS === 'warn'
      ? ['"level":"error"', '"level":"warn"']
      : process.env.BENCH_SERVICE_ERRORS === '1'
        ? ['"level":"error"']
        : [];
  const onLogLine = (line: string) => {
    if (printed.some((level) => line.includes(level))) process.stderr.write(`service: ${line.slice(0, 2000)}\n`);
  };
  const worker = await startWorker(stack, { outdir: path.join(buildRoot, 'service'), onLogLine, ...options });
  return { name: 'service', url: worker.url, stop: worker.stop };
}

/**
 * The service bundled once (`buildWorker`, as a deploy would) and served by several Miniflare
 * instances, each as `startWorker` serves it (`serveWorker`: the bindings of wrangler.toml and
 * the local stack's variables) plus variables of its own: the events benchmark's two Workers,
 * events on and `WRITE_EVENTS=off`, from the very same bundle.
 */
export function serviceBundle(): {
  serve(
    stack: LocalStack,
    name: string,
    vars: Record<string, string>,
    options?: { inspectorPort?: number },
  ): Promise<RunningWorker>;
} {
  const scriptPath = buildWorker(path.join(buildRoot, 'service-variants'));
  return {
    async serve(stack, name, vars, options = {}) {
      // The service logs a line a request: read and dropped, as `startService` does.
      const worker = await serveWorker(stack, scriptPath, { vars, onLogLine: () => {}, ...options });
      return { name, url: worker.url, stop: worker.stop };
    },
  };
}
