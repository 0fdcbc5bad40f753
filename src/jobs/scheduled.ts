import type { Env } from '../app-env';
import { sweepEvents } from '../events/sweep';
import { errorField, log } from '../lib/log';
import type { Module, ScheduledTask } from '../modules/module';

/** Every module's cron tasks by `module.task`, and the sweep of the events' outbox. */
function tasksOf(modules: readonly Module[]): [string, ScheduledTask][] {
  return [
    ['events.sweep', sweepEvents],
    ...modules.flatMap((module) =>
      Object.entries(module.cron).map(([name, task]): [string, ScheduledTask] => [`${module.name}.${name}`, task]),
    ),
  ];
}

/**
 * The cron trigger: every task runs, side by side; one failing does not stop the others, but the
 * run as a whole then fails, so the platform shows the invocation as failed.
 */
export function scheduledHandler(modules: readonly Module[]) {
  const tasks = tasksOf(modules);
  return async (controller: ScheduledController, env: Env): Promise<void> => {
    const at = new Date(controller.scheduledTime);
    const results = await Promise.allSettled(tasks.map(([, task]) => task(env, at)));
    const failed: string[] = [];
    results.forEach((result, index) => {
      if (result.status === 'fulfilled') return;
      const name = tasks[index]![0];
      log('error', 'scheduled: task failed', { task: name, error: errorField(result.reason) });
      failed.push(name);
    });
    if (failed.length > 0) throw new Error(`scheduled tasks failed: ${failed.join(', ')}`);
  };
}
