import type { Env } from '../app-env';
import { DRAIN_KIND, drainEvents } from '../events/drain';
import { errorField, log } from '../lib/log';
import type { JobConsumer, Module } from '../modules/module';
import type { JobMessage } from './job-message';
import { RetryLater } from './retry-later';

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
    log('warn', 'jobs: could not queue a message again; retrying it instead', { kind: message.body.kind, error: errorField(error) });
    message.retry({ delaySeconds });
  }
}

/** Hands one message to its kind's consumer; acknowledges it, or asks the queue to retry it later. */
async function consumeOne(consumers: Record<string, JobConsumer>, message: Message<JobMessage>, env: Env): Promise<void> {
  const kind = message.body?.kind;
  const consumer = consumers[kind];
  if (!consumer) {
    // A message of an unknown kind can never succeed: acknowledged and logged, not retried.
    log('warn', 'jobs: no consumer for this kind; dropped', { kind: String(kind), messageId: message.id });
    message.ack();
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
    log('error', 'jobs: consumer failed', { kind, messageId: message.id, attempt: message.attempts, error: errorField(error) });
    message.retry({ delaySeconds: Math.min(300, 2 ** message.attempts) });
  }
}

/**
 * The queue consumer over every module's consumers. The messages of a batch run side by side
 * (each consumer works in a transaction of its own and is safe to run twice), so a batch costs
 * its slowest message, not the sum: the import's chunks keep the database busy instead of
 * waiting in line. Messages alike in a batch (every write of an installation asks for its drain)
 * run once: running one twice at once would only make the second wait for the first.
 */
export function queueHandler(modules: readonly Module[]) {
  const consumers = consumersOf(modules);
  return async (batch: MessageBatch<JobMessage>, env: Env): Promise<void> => {
    const alike = new Map<string, Message<JobMessage>[]>();
    for (const message of batch.messages) {
      const key = JSON.stringify(message.body);
      alike.set(key, [...(alike.get(key) ?? []), message]);
    }
    await Promise.all([...alike.values()].map(async ([first, ...others]) => {
      await consumeOne(consumers, first!, env);
      // the first's outcome stands for them: done, or coming back to be done
      for (const other of others) other.ack();
    }));
  };
}
