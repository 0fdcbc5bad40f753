import { sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { deadLetters } from '../db/schema';
import { isoTime, jsonObject } from '../engine';
import { SOURCE_QUEUE_NAMES } from './queues';

export const DEAD_LETTER_STATES = ['open', 'replayed', 'discarded'] as const;

/** Where a dead letter stands: nobody has dealt with it yet, or it was put back on its queue, or set aside. */
export const stateOf: SQL = sql`CASE WHEN ${deadLetters.replayedAt} IS NOT NULL THEN 'replayed' WHEN ${deadLetters.discardedAt} IS NOT NULL THEN 'discarded' ELSE 'open' END`;

/** A dead letter as it reads, built by Postgres. */
export const deadLetterJson: SQL = jsonObject({
  id: deadLetters.id,
  state: stateOf,
  queue: deadLetters.queue,
  installationId: deadLetters.installationId,
  kind: sql`${deadLetters.body}->>'kind'`,
  body: deadLetters.body,
  messageId: deadLetters.messageId,
  attempts: deadLetters.attempts,
  sentAt: isoTime(deadLetters.sentAt),
  deadAt: isoTime(deadLetters.deadAt),
  replayedAt: isoTime(deadLetters.replayedAt),
  discardedAt: isoTime(deadLetters.discardedAt),
});

const time = z.iso.datetime();

export const deadLetterSchema = z
  .object({
    id: z.number().int(),
    state: z.enum(DEAD_LETTER_STATES).meta({
      description:
        'open (nobody has dealt with it), replayed (put back on its queue), discarded (set aside by an operator)',
    }),
    queue: z.enum(SOURCE_QUEUE_NAMES).meta({ description: 'the queue it died on, where a replay puts it back' }),
    installationId: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'the installation the message names (an events drain), or null' }),
    kind: z.string().nullable().meta({
      description:
        "the message's `kind`: which consumer takes it (`events.drain`, `webhooks.deliver`, `mail.send`, `companies.import`)",
    }),
    body: z.unknown().meta({ description: 'the message as it was sent' }),
    messageId: z.string().meta({ description: "the queue's id of the message" }),
    attempts: z
      .number()
      .int()
      .meta({ description: "its deliveries before it died (the first and the queue's `max_retries`)" }),
    sentAt: time.meta({ description: 'when it was first sent to its queue' }),
    deadAt: time.meta({ description: 'when it was stored here' }),
    replayedAt: time.nullable(),
    discardedAt: time.nullable(),
  })
  .meta({ id: 'DeadLetter', description: 'a queue message whose consumer failed every delivery' });

export type DeadLetterRecord = z.infer<typeof deadLetterSchema>;

/** One dead letter, as every operator route but the list answers it. */
export const deadLetterBody = z.object({ deadLetter: deadLetterSchema }).meta({ id: 'DeadLetterBody' });
