/** The queues whose messages may die. */
export const SOURCE_QUEUE_NAMES = ['helpdesk-jobs', 'helpdesk-webhooks', 'helpdesk-mail'] as const;

export type SourceQueue = (typeof SOURCE_QUEUE_NAMES)[number];

/**
 * Each queue's dead-letter queue, and the binding that puts a message back on the queue. As
 * wrangler.toml declares them (`dead_letter_queue`, the producers); test/unit/dead-letter-queues.test.ts
 * holds the two together.
 */
export const SOURCE_QUEUES: Record<
  SourceQueue,
  { deadLetterQueue: string; binding: 'JOBS' | 'WEBHOOKS' | 'MAIL_OUT' }
> = {
  'helpdesk-jobs': { deadLetterQueue: 'helpdesk-jobs-dlq', binding: 'JOBS' },
  'helpdesk-webhooks': { deadLetterQueue: 'helpdesk-webhooks-dlq', binding: 'WEBHOOKS' },
  'helpdesk-mail': { deadLetterQueue: 'helpdesk-mail-dlq', binding: 'MAIL_OUT' },
};

/**
 * The deliveries a message had before it died: the first and `max_retries` (5) more. The platform
 * moves a message to the dead-letter queue only once they are spent, and the dead-letter queue
 * delivers it with attempts of its own, so the count is the configuration's.
 */
export const ATTEMPTS_BEFORE_DEATH = 6;

/** The queue a dead-letter queue's messages came from, or undefined for any other queue. */
export function sourceOf(deadLetterQueue: string): SourceQueue | undefined {
  return SOURCE_QUEUE_NAMES.find((name) => SOURCE_QUEUES[name].deadLetterQueue === deadLetterQueue);
}
