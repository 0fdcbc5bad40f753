import type { Env } from '../../app-env';
import type { JobMessage } from '../../jobs/job-message';

export const DELIVER_KIND = 'webhooks.deliver';

/** Deliveries one message names at most: an event's to every endpoint, tried side by side. */
export const MAX_DELIVERIES_A_MESSAGE = 50;

/** The queue message that tries deliveries; `queuedAt` tells a delivery not committed yet from one rolled back. */
export function deliverMessage(deliveryIds: readonly number[]): JobMessage {
  return { kind: DELIVER_KIND, deliveryIds: [...deliveryIds], queuedAt: Date.now() };
}

/** A queue takes at most 100 messages in one batch. Deliveries go on their own queue (wrangler.toml). */
const BATCH_LIMIT = 100;

/** Messages for the deliveries, each naming up to `MAX_DELIVERIES_A_MESSAGE`, each due in `delaySeconds`. */
function messagesFor(ids: readonly number[], delaySeconds?: number): MessageSendRequest<JobMessage>[] {
  const messages: MessageSendRequest<JobMessage>[] = [];
  for (let i = 0; i < ids.length; i += MAX_DELIVERIES_A_MESSAGE) {
    messages.push({ body: deliverMessage(ids.slice(i, i + MAX_DELIVERIES_A_MESSAGE)), ...(delaySeconds ? { delaySeconds } : {}) });
  }
  return messages;
}

async function send(env: Pick<Env, 'WEBHOOKS'>, messages: MessageSendRequest<JobMessage>[]): Promise<void> {
  for (let i = 0; i < messages.length; i += BATCH_LIMIT) await env.WEBHOOKS.sendBatch(messages.slice(i, i + BATCH_LIMIT));
}

/** Puts the deliveries on the queue, to be tried now. */
export async function sendDeliveries(env: Pick<Env, 'WEBHOOKS'>, ids: readonly number[]): Promise<void> {
  await send(env, messagesFor(ids));
}

/** Puts deliveries on the queue to be tried after their waits (seconds), those with the same wait in one message. */
export async function sendLater(env: Pick<Env, 'WEBHOOKS'>, deliveries: ReadonlyArray<{ id: number; wait: number }>): Promise<void> {
  const byWait = new Map<number, number[]>();
  for (const { id, wait } of deliveries) byWait.set(wait, [...(byWait.get(wait) ?? []), id]);
  await send(env, [...byWait].flatMap(([wait, ids]) => messagesFor(ids, wait)));
}
