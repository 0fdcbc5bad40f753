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

/**
 * The queue consumer: each message goes to its kind's consumer and is acknowledged when that
 * finishes; a failure is retried by the queue with a delay. A message of an unknown kind can
 * never succeed, so it is acknowledged and logged rather than retried.
 */
export async function consumeJobs(batch: MessageBatch<JobMessage>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const consumer = jobConsumers[message.body?.kind];
    if (!consumer) {
      console.warn(`jobs: no consumer for kind ${JSON.stringify(message.body?.kind)}; dropped`);
      message.ack();
      continue;
    }
    try {
      await consumer(message.body, env);
      message.ack();
    } catch (error) {
      console.error(`jobs: ${message.body.kind} failed (attempt ${message.attempts}):`, error);
      message.retry({ delaySeconds: Math.min(300, 2 ** message.attempts) });
    }
  }
}
