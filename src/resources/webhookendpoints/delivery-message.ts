import type { JobMessage } from '../../jobs/job-message';

export const DELIVER_KIND = 'webhooks.deliver';

/** The queue message that sends one delivery; `queuedAt` tells a delivery not committed yet from one rolled back. */
export function deliverMessage(deliveryId: number): JobMessage {
  return { kind: DELIVER_KIND, deliveryId, queuedAt: Date.now() };
}
