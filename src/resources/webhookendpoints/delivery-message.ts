import type { Env } from '../../app-env';
import type { JobMessage } from '../../jobs/job-message';

export const DELIVER_KIND = 'webhooks.deliver';

/** Deliveries one message names at most: an event's to every endpoint, tried side by side. */
export const MAX_DELIVERIES_A_MESSAGE = 50;

/**
 * What the bodies of a write's new deliveries will carry, as the write tells it: the records of
 * each event, which the consumer reads while it reads the deliveries (`decide.ts`). A hint, used
 * only where the rows read agree with it.
 */
export interface RecordsHint {
  eventId: number;
  installationId: number;
  recordType: string;
  recordId: number;
  ticketId: number | null;
}

/** The queue message that tries deliveries: every sender sends it once they are committed. */
export function deliverMessage(deliveryIds: readonly number[], records: readonly RecordsHint[] = []): JobMessage {
  return { kind: DELIVER_KIND, deliveryIds: [...deliveryIds], ...(records.length ? { records: [...records] } : {}) };
}

/** A queue takes at most 100 messages in one batch. Deliveries go on their own queue (wrangler.toml). */
const BATCH_LIMIT = 100;

/** Messages for the deliveries, each naming up to `MAX_DELIVERIES_A_MESSAGE`, each due in `delaySeconds`. */
function messagesFor(ids: readonly number[], delaySeconds?: number): MessageSendRequest<JobMessage>[] {
  const messages: MessageSendRequest<JobMessage>[] = [];
  for (let i = 0; i < ids.length; i += MAX_DELIVERIES_A_MESSAGE) {
    messages.push({
      body: deliverMessage(ids.slice(i, i + MAX_DELIVERIES_A_MESSAGE)),
      ...(delaySeconds ? { delaySeconds } : {}),
    });
  }
  return messages;
}

async function send(env: Pick<Env, 'WEBHOOKS'>, messages: MessageSendRequest<JobMessage>[]): Promise<void> {
  for (let i = 0; i < messages.length; i += BATCH_LIMIT)
    await env.WEBHOOKS.sendBatch(messages.slice(i, i + BATCH_LIMIT));
}

/** Puts a write's new deliveries on the queue, to be tried now, each message with the hints of its deliveries' events. */
export async function sendMade(
  env: Pick<Env, 'WEBHOOKS'>,
  made: ReadonlyArray<{ id: number; hint: RecordsHint }>,
): Promise<void> {
  const messages: MessageSendRequest<JobMessage>[] = [];
  for (let i = 0; i < made.length; i += MAX_DELIVERIES_A_MESSAGE) {
    const part = made.slice(i, i + MAX_DELIVERIES_A_MESSAGE);
    const hints = new Map(part.map(({ hint }) => [hint.eventId, hint]));
    messages.push({
      body: deliverMessage(
        part.map(({ id }) => id),
        [...hints.values()],
      ),
    });
  }
  await send(env, messages);
}

/** Puts the deliveries on the queue, to be tried after `delaySeconds` (now when absent). */
export async function queueDeliveries(
  env: Pick<Env, 'WEBHOOKS'>,
  ids: readonly number[],
  delaySeconds?: number,
): Promise<void> {
  await send(env, messagesFor(ids, delaySeconds));
}
