import type { Env } from '../app-env';
import { consumeImportChunk, IMPORT_CHUNK_KIND } from '../resources/companies/import-consumer';

/** A message on the jobs queue: `kind` picks the consumer. */
export interface JobMessage {
  kind: string;
  [key: string]: unknown;
}

export type JobConsumer = (message: JobMessage, env: Env) => Promise<void>;

/** The consumers of each kind of job. Background work registers here (company import, ...). */
export const jobConsumers: Record<string, JobConsumer> = {
  [IMPORT_CHUNK_KIND]: consumeImportChunk,
};

/** Hands one message to its kind's consumer; acknowledges it, or asks the queue to retry it later. */
async function consumeOne(message: Message<JobMessage>, env: Env): Promise<void> {
  const consumer = jobConsumers[message.body?.kind];
  if (!consumer) {
    // A message of an unknown kind can never succeed: acknowledged and logged, not retried.
    console.warn(`jobs: no consumer for kind ${JSON.stringify(message.body?.kind)}; dropped`);
    message.ack();
    return;
  }
  try {
    await consumer(message.body, env);
    message.ack();
  } catch (error) {
    console.error(`jobs: ${message.body.kind} failed (attempt ${message.attempts}):`, error);
    message.retry({ delaySeconds: Math.min(300, 2 ** message.attempts) });
  }
}

/**
 * The queue consumer. The messages of a batch run side by side (each consumer works in a
 * transaction of its own and is safe to run twice), so a batch costs its slowest message, not
 * the sum: the import's chunks keep the database busy instead of waiting in line.
 */
export async function consumeJobs(batch: MessageBatch<JobMessage>, env: Env): Promise<void> {
  await Promise.all(batch.messages.map((message) => consumeOne(message, env)));
}
