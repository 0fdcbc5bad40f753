import type { Env } from '../app-env';
import { meterAiUsage } from '../resources/ai/metering';
import { scanForAnomalies } from '../resources/anomalies/scan';
import { sweepStalledImports } from '../resources/companies/import-sweep';

export type ScheduledTask = (env: Env, at: Date) => Promise<void>;

/** What the cron trigger runs. Metering, anomaly scans and sweeps register here. */
export const scheduledTasks: Record<string, ScheduledTask> = {
  aiMetering: meterAiUsage,
  anomalyScan: scanForAnomalies,
  importSweep: sweepStalledImports,
};

/**
 * The cron trigger: every task runs, side by side; one failing does not stop the others, but the
 * run as a whole then fails, so the platform shows the invocation as failed.
 */
export async function runScheduled(controller: ScheduledController, env: Env): Promise<void> {
  const at = new Date(controller.scheduledTime);
  const tasks = Object.entries(scheduledTasks);
  const results = await Promise.allSettled(tasks.map(([, task]) => task(env, at)));
  const failed: string[] = [];
  results.forEach((result, index) => {
    if (result.status === 'fulfilled') return;
    const name = tasks[index]?.[0] ?? String(index);
    console.error(`scheduled: ${name} failed:`, result.reason);
    failed.push(name);
  });
  if (failed.length > 0) throw new Error(`scheduled tasks failed: ${failed.join(', ')}`);
}
