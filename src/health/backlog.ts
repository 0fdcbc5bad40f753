import { sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';

/** Rows counted at most in each backlog: the count stays cheap however far behind the service is. */
export const BACKLOG_COUNT_CAP = 10_000;

/**
 * How late the oldest of a backlog may be before `/health` says `degraded`: 15 minutes. The
 * crons look every 5 minutes for what waits over a minute (an event, a delivery or a mail whose
 * queue message was lost), and a subscriber's retries span about 7 minutes, so past 15 minutes
 * the work is stuck, not slow.
 */
export const BACKLOG_AGE_THRESHOLD_SECONDS = 900;

/** Open dead letters past which `/health` says `degraded`: any. A dead letter is work not done until an operator replays or discards it. */
export const DEAD_LETTER_THRESHOLD = 0;

const count = (what: string) =>
  z
    .number()
    .int()
    .meta({ description: `${what}, counted up to ${BACKLOG_COUNT_CAP}` });
const seconds = (what: string) =>
  z
    .number()
    .int()
    .nullable()
    .meta({ description: `${what}, in whole seconds; null when there is none` });
const overThreshold = (rule: string) =>
  z.boolean().meta({ description: `whether it is past its threshold (${rule}): the status is then \`degraded\`` });
const ageRule = `the oldest over ${BACKLOG_AGE_THRESHOLD_SECONDS} s`;

export const backlogSchema = z
  .object({
    outbox: z.object({
      count: count('write events not yet handed to every subscriber'),
      oldestSeconds: seconds('how long the oldest has waited'),
      overThreshold: overThreshold(ageRule),
    }),
    webhookDeliveries: z.object({
      count: count('webhook deliveries pending (to be tried, or tried again later)'),
      overdueSeconds: seconds(
        'how far past its time the most overdue one that is free to go is (one waiting behind an earlier delivery of its ticket is not)',
      ),
      overThreshold: overThreshold(`the most overdue over ${BACKLOG_AGE_THRESHOLD_SECONDS} s`),
    }),
    outgoingMail: z.object({
      count: count('outgoing messages queued (to be sent, or sent again after a failure)'),
      overdueSeconds: seconds('how far past its time the most overdue one is'),
      overThreshold: overThreshold(`the most overdue over ${BACKLOG_AGE_THRESHOLD_SECONDS} s`),
    }),
    deadLetters: z.object({
      count: count('queue messages that failed every delivery, neither replayed nor discarded'),
      oldestSeconds: seconds('how long the oldest has waited since it died'),
      overThreshold: overThreshold('any'),
    }),
  })
  .meta({ id: 'HealthBacklog', description: "the work the service owes, read in the health check's one query" });

export type Backlog = z.infer<typeof backlogSchema>;

const capped = (rows: SQL) => sql`(SELECT count(*)::int FROM (${rows} LIMIT ${BACKLOG_COUNT_CAP}) AS counted)`;
const secondsSince = (expr: SQL) => sql`floor(extract(epoch FROM now() - (${expr})))::int`;

/**
 * The backlog in one statement (the health check's one exchange), each part over the partial
 * index of its pending rows: the outbox's undispatched events, the pending webhook deliveries,
 * the queued outgoing mail, the open dead letters.
 */
export const backlogQuery: SQL = sql`
  SELECT ${capped(sql`SELECT 1 FROM events WHERE dispatched_at IS NULL`)} AS outbox_count,
         ${secondsSince(sql`SELECT min(occurred_at) FROM events WHERE dispatched_at IS NULL`)} AS outbox_oldest,
         ${capped(sql`SELECT 1 FROM webhook_deliveries WHERE status = 'pending'`)} AS webhooks_count,
         -- read as the webhooks sweep reads them (src/resources/webhookendpoints/deliver.ts): one waiting
         -- behind an earlier pending delivery of its ticket to its endpoint is not late, it is in line
         ${secondsSince(sql`SELECT min(d.next_attempt_at) FROM webhook_deliveries d
            WHERE d.status = 'pending' AND d.next_attempt_at <= now()
              AND NOT (d.ticket_id IS NOT NULL AND EXISTS (SELECT 1 FROM webhook_deliveries e
                    WHERE e.endpoint_id = d.endpoint_id AND e.ticket_id = d.ticket_id AND e.status = 'pending'
                      AND (coalesce(e.turn, e.id), e.id) < (coalesce(d.turn, d.id), d.id)))`)} AS webhooks_overdue,
         ${capped(sql`SELECT 1 FROM outbound_mails WHERE status = 'queued'`)} AS mail_count,
         ${secondsSince(sql`SELECT min(next_attempt_at) FROM outbound_mails WHERE status = 'queued' AND next_attempt_at <= now()`)} AS mail_overdue,
         ${capped(sql`SELECT 1 FROM dead_letters WHERE replayed_at IS NULL AND discarded_at IS NULL`)} AS dead_count,
         ${secondsSince(sql`SELECT min(dead_at) FROM dead_letters WHERE replayed_at IS NULL AND discarded_at IS NULL`)} AS dead_oldest`;

const seconds0 = (value: unknown): number | null =>
  value === null || value === undefined ? null : Math.max(0, Number(value));
const late = (value: number | null) => value !== null && value > BACKLOG_AGE_THRESHOLD_SECONDS;

/** The backlog from the query's row, each part judged against its threshold. */
export function backlogOf(row: Record<string, unknown>): Backlog {
  const outboxOldest = seconds0(row.outbox_oldest);
  const webhooksOverdue = seconds0(row.webhooks_overdue);
  const mailOverdue = seconds0(row.mail_overdue);
  const deadCount = Number(row.dead_count);
  return {
    outbox: { count: Number(row.outbox_count), oldestSeconds: outboxOldest, overThreshold: late(outboxOldest) },
    webhookDeliveries: {
      count: Number(row.webhooks_count),
      overdueSeconds: webhooksOverdue,
      overThreshold: late(webhooksOverdue),
    },
    outgoingMail: { count: Number(row.mail_count), overdueSeconds: mailOverdue, overThreshold: late(mailOverdue) },
    deadLetters: {
      count: deadCount,
      oldestSeconds: seconds0(row.dead_oldest),
      overThreshold: deadCount > DEAD_LETTER_THRESHOLD,
    },
  };
}

/** Whether any part of the backlog is past its threshold. */
export const isDegraded = (backlog: Backlog): boolean => Object.values(backlog).some((part) => part.overThreshold);
