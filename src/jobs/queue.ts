import type { Env } from '../app-env';
import { sourceOf } from '../deadletters/queues';
import { storeDeadLetters } from '../deadletters/store';
import { DRAIN_KIND, drainEvents } from '../events/drain';
import { errorField, log } from '../lib/log';
import type { JobConsumer, Module } from '../modules/module';
import { retryDelaySeconds } from './backoff';
import type { JobMessage } from './job-message';
import { RetryLater } from './retry-later';

/** The longest wait before a failed message is delivered again. */
const MAX_RETRY_WAIT_SECONDS = 300;

/** The consumers of every module by message kind, and the drain of the events to their subscribers. */
function consumersOf(modules: readonly Module[]): Record<string, JobConsumer> {
  const consumers: Record<string, JobConsumer> = { [DRAIN_KIND]: drainEvents };
  for (const module of modules) {
    for (const [kind, consumer] of Object.entries(module.consumers)) {
      if (consumers[kind]) throw new Error(`two consumers of ${kind}`);
      consumers[kind] = consumer;
    }
  }
  return consumers;
}

/**
 * A message whose consumer cannot do its work yet goes back on the queue as a new message:
 * waiting is not failing, so it uses none of the message's retries (`max_retries`). Where the
 * send fails, the queue's own retry stands in.
 */
async function sendAgain(message: Message<JobMessage>, env: Env, delaySeconds: number): Promise<void> {
  try {
    await env.JOBS.send(message.body, { delaySeconds });
    message.ack();
  } catch (error) {
    log('warn', 'jobs: could not queue a message again; retrying it instead', {
      kind: message.body.kind,
      error: errorField(error),
    });
    message.retry({ delaySeconds });
  }
}

/** Hands one message to its kind's consumer; acknowledges it, or asks the queue to retry it later. */
async function consumeOne(
  consumers: Record<string, JobConsumer>,
  message: Message<JobMessage>,
  env: Env,
): Promise<void> {
  const kind = message.body?.kind;
  const consumer = consumers[kind];
  if (!consumer) {
    // A Worker of another version may know the kind (a deploy rolls out gradually): retried as a
    // failure is, and dead-lettered, never dropped, if no version ever takes it.
    log('error', 'jobs: no consumer for this kind', {
      kind: String(kind),
      messageId: message.id,
      attempt: message.attempts,
    });
    message.retry({ delaySeconds: retryDelaySeconds(message.attempts, env, MAX_RETRY_WAIT_SECONDS) });
    return;
  }
  try {
    await consumer(message.body, env);
    message.ack();
  } catch (error) {
    if (error instanceof RetryLater) {
      await sendAgain(message, env, error.seconds);
      return;
    }
    log('error', 'jobs: consumer failed', {
      kind,
      messageId: message.id,
      attempt: message.attempts,
      error: errorField(error),
    });
    // past the queue's max_retries the platform moves it to the dead-letter queue (src/deadletters)
    message.retry({ delaySeconds: retryDelaySeconds(message.attempts, env, MAX_RETRY_WAIT_SECONDS) });
  }
}

/**
 * The queue consumer over every module's consumers. The messages of a batch run side by side
 * (each consumer works in a transaction of its own and is safe to run twice), so a batch costs
 * its slowest message, not the sum: the import's chunks keep the database busy instead of
 * waiting in line. Messages alike in a batch (every write of an installation asks for its drain)
 * run once: running one twice at once would only make the second wait for the first. A batch of
 * a dead-letter queue is stored (`storeDeadLetters`).
 */
export function queueHandler(modules: readonly Module[]) {
  const consumers = consumersOf(modules);
  return async (batch: MessageBatch<JobMessage>, env: Env): Promise<void> => {
    // a dead-letter queue's messages are stored for an operator, never consumed again here
    const diedOn = sourceOf(batch.queue);
    if (diedOn) return storeDeadLetters(batch, diedOn, env);
    const alike = new Map<string, Message<JobMessage>[]>();
    for (const message of batch.messages) {
      const key = JSON.stringify(message.body);
      alike.set(key, [...(alike.get(key) ?? []), message]);
    }
    await Promise.all(
      [...alike.values()].map(async ([first, ...others]) => {
        await consumeOne(consumers, first!, env);
        // the first's outcome stands for them: done, or coming back to be done
        for (const other of others) other.ack();
      }),
    );
  };
}
