// What the code knows of the queues (src/deadletters/queues.ts) is what wrangler.toml deploys:
// each queue dead-letters to the queue the code reads as its, after the retries the code counts,
// and every dead-letter queue has this Worker as its consumer. Observability and the request
// metrics' binding are declared too.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { unstable_readConfig } from 'wrangler';
import { ATTEMPTS_BEFORE_DEATH, SOURCE_QUEUE_NAMES, SOURCE_QUEUES, sourceOf } from '../../src/deadletters/queues';

/** What this test reads of the configuration (wrangler's own type of it does not resolve here). */
interface Read {
  queues: {
    consumers?: { queue: string; max_retries?: number; dead_letter_queue?: string }[];
    producers?: { binding: string; queue: string }[];
  };
  observability?: { enabled?: boolean; head_sampling_rate?: number };
  analytics_engine_datasets: { binding: string; dataset?: string }[];
}

const config = unstable_readConfig(
  { config: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../wrangler.toml') },
  { hideWarnings: true },
) as unknown as Read;
const consumers = new Map((config.queues.consumers ?? []).map((consumer) => [consumer.queue, consumer]));
const producers = new Map((config.queues.producers ?? []).map((producer) => [producer.binding, producer.queue]));

describe('wrangler.toml and src/deadletters/queues.ts', () => {
  it('agree on each queue: its dead-letter queue, its retries, its producer binding', () => {
    expect([...consumers.keys()].filter((queue) => !sourceOf(queue)).sort()).toEqual([...SOURCE_QUEUE_NAMES].sort());
    for (const queue of SOURCE_QUEUE_NAMES) {
      const consumer = consumers.get(queue)!;
      expect(consumer.dead_letter_queue, queue).toBe(SOURCE_QUEUES[queue].deadLetterQueue);
      expect(consumer.max_retries! + 1, queue).toBe(ATTEMPTS_BEFORE_DEATH);
      expect(producers.get(SOURCE_QUEUES[queue].binding), queue).toBe(queue);
    }
  });

  it('gives every dead-letter queue a consumer that waits long for the database, and none a dead-letter queue of its own', () => {
    for (const queue of SOURCE_QUEUE_NAMES) {
      const deadLetters = consumers.get(SOURCE_QUEUES[queue].deadLetterQueue);
      expect(deadLetters, queue).toBeDefined();
      expect(deadLetters!.max_retries).toBe(100);
      expect(deadLetters!.dead_letter_queue).toBeUndefined();
    }
  });

  it('turns observability on with a head sampling rate, and binds the request metrics', () => {
    expect(config.observability).toMatchObject({ enabled: true, head_sampling_rate: expect.any(Number) });
    expect(config.analytics_engine_datasets).toEqual([
      expect.objectContaining({ binding: 'REQUEST_METRICS', dataset: 'helpdesk_requests' }),
    ]);
  });
});
