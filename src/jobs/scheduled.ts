import type { Env } from '../app-env';

export type ScheduledTask = (env: Env, at: Date) => Promise<void>;

/** What the cron trigger runs, in order. Metering and anomaly scans register here. */
export const scheduledTasks: Record<string, ScheduledTask> = {};

/** The cron trigger: every task runs; one failing does not stop the others. */
export async function runScheduled(controller: ScheduledController, env: Env): Promise<void> {
  const at = new Date(controller.scheduledTime);
  const results = await Promise.allSettled(Object.values(scheduledTasks).map((task) => task(env, at)));
  results.forEach((result, index) => {
    if (result.status === 'rejected') console.error(`scheduled: ${Object.keys(scheduledTasks)[index]} failed:`, result.reason);
  });
}
