import type { Env } from '../../app-env';
import type { JobMessage } from '../../jobs/job-message';

export const DELIVER_KIND = 'webhooks.deliver';

/** The queue message that sends one delivery; `queuedAt` tells a delivery not committed yet from one rolled back. */
export function deliverMessage(deliveryId: number): JobMessage {
  return { kind: DELIVER_KIND, deliveryId, queuedAt: Date.now() };
}

/** A queue takes at most 100 messages in one batch. */
const BATCH_LIMIT = 100;

/** Puts a message for each delivery on the queue, in batches the queue takes. */
export async function sendDeliveries(env: Pick<Env, 'JOBS'>, ids: readonly number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += BATCH_LIMIT) {
    await env.JOBS.sendBatch(ids.slice(i, i + BATCH_LIMIT).map((id) => ({ body: deliverMessage(id) })));
  }
}
