// What every bench entry shares: a log line, the things it started (stopped last first, also on
// Ctrl-C), and a last check that no process it started is left running.
import { leftoverProcesses } from './report';

export const log = (message: string) => process.stdout.write(`${message}\n`);

/** A bench setting: the number in the environment variable `name`, else `fallback`; at least 0, or above 0 when `positive`. */
export function setting(name: string, fallback: number, positive = false): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0 || (positive && value === 0))
    throw new Error(`${name} must be a ${positive ? 'positive ' : ''}number`);
  return value;
}

/** When this bench process started. */
export const started = Date.now();

/** What the bench started, each with its stop; `runBench` stops them last first. */
export const stops: Array<() => Promise<void>> = [];

let stopping: Promise<void> | undefined;
/** Stops what was started, last first; safe to call twice. */
const stopAll = () =>
  (stopping ??= (async () => {
    for (const stop of stops.reverse()) await stop().catch((e: unknown) => log(`stopping failed: ${String(e)}`));
  })());

/** Runs a bench's `main`, then stops everything, reports leftovers and the time taken, and exits. */
export async function runBench(main: () => Promise<void>): Promise<never> {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void stopAll().finally(() => process.exit(130)));
  }
  try {
    await main();
  } catch (error) {
    log(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exitCode = 1;
  } finally {
    await stopAll();
    const left = leftoverProcesses();
    log(
      left.length
        ? `processes left running:\n  ${left.join('\n  ')}`
        : 'stopped everything it started (no processes left)',
    );
    log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  process.exit(process.exitCode ?? 0);
}
