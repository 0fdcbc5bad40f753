import type { Env } from '../app-env';
import type { Database } from '../db/client';
import { errorField, log } from '../lib/log';
import { drainMessage } from './drain';

/**
 * Once a request or a job is done, tells the queue to drain the events it wrote. Sent after the
 * commit, so a drain never looks for events that are not there yet; if the send is lost, the
 * cron's sweep finds the events a minute later.
 */
export async function announceEvents(env: Env, db: Database): Promise<void> {
  const installations = [...db.eventInstallations];
  db.eventInstallations.clear();
  if (installations.length === 0) return;
  try {
    await env.JOBS.sendBatch(installations.map((id) => ({ body: drainMessage(id) })));
  } catch (error) {
    log('warn', 'events: could not queue a drain; the sweep will', { installations, error: errorField(error) });
  }
}
