import { inject } from 'vitest';

/** Fires the Worker's cron trigger in workerd as if at `at`, and waits for the scheduled handler to finish. */
export async function runCron(at: Date = new Date()): Promise<void> {
  const response = await fetch(
    `${inject('workerControlsUrl')}/scheduled?time=${encodeURIComponent(at.toISOString())}`,
    { method: 'POST' },
  );
  if (response.status !== 204) throw new Error(`scheduled handler failed: ${response.status} ${await response.text()}`);
}
