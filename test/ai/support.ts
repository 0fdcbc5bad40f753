import { rows } from '../support/db';

/** A UTC date `days` days from now (negative: ago), as `YYYY-MM-DD`. */
export function utcDateFromToday(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

export async function setBilling(
  installationId: number,
  billing: { anchor: string; interval: 'month' | 'year'; allowance: number },
): Promise<void> {
  await rows(`UPDATE installations SET billing_anchor = $2, billing_interval = $3, ai_allowance = $4 WHERE id = $1`, [
    installationId,
    billing.anchor,
    billing.interval,
    billing.allowance,
  ]);
}

let nextSource = 1;

/**
 * Records AI usage as the message write path does (stream, units, when), `count` events of
 * `units` each. The source type is the test's own, so the events never meet another file's.
 */
export async function addUsage(
  installationId: number,
  stream: 'replies' | 'chat',
  occurredAt: string | Date,
  count = 1,
  units = 1,
): Promise<void> {
  const at = typeof occurredAt === 'string' ? occurredAt : occurredAt.toISOString();
  const first = nextSource;
  nextSource += count;
  await rows(
    `INSERT INTO ai_usage_events (installation_id, stream, units, source_type, source_id, occurred_at)
     SELECT $1::int, $2, $3, 'aitest-' || $1::int, n, $4::timestamptz FROM generate_series($5::int, $6::int) AS n`,
    [installationId, stream, units, at, first, first + count - 1],
  );
}

export interface PeriodRow {
  period_start: string;
  reset_date: string;
  allowance: number;
  replies_used: number;
  chat_used: number;
  state: string;
  measured_at: string;
}

/** The metering's row of one installation's period, dates and times as text. */
export async function periodRow(installationId: number, periodStart: string): Promise<PeriodRow | undefined> {
  const [row] = await rows<PeriodRow>(
    `SELECT period_start::text, reset_date::text, allowance, replies_used, chat_used, state,
            to_char(measured_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS measured_at
     FROM ai_usage_periods WHERE installation_id = $1 AND period_start = $2`,
    [installationId, periodStart],
  );
  return row;
}

export async function newConversation(installationId: number): Promise<number> {
  const [row] = await rows<{ id: number }>(
    `INSERT INTO conversations (installation_id, token) VALUES ($1, $2) RETURNING id`,
    [installationId, `${Date.now()}${Math.random().toString().slice(2, 12)}`],
  );
  return row!.id;
}

export interface MessageSetup {
  author?: 'contact' | 'agent' | 'ai' | 'system';
  sentAt: string | Date;
  aiDraft?: string | null;
  aiSimilarity?: number | null;
  state?: 'active' | 'deleted';
  message?: string;
}

/** A conversation message as the write path stores it: an agent's reply with the draft it came from, by default. */
export async function addMessage(installationId: number, conversationId: number, setup: MessageSetup): Promise<void> {
  const sentAt = typeof setup.sentAt === 'string' ? setup.sentAt : setup.sentAt.toISOString();
  await rows(
    `INSERT INTO conversation_messages
       (installation_id, conversation_id, author, message, client_id, sent_at, ai_draft, ai_similarity, state)
     VALUES ($1, $2, $3, $4, $5, $6::timestamptz, $7, $8, $9)`,
    [
      installationId,
      conversationId,
      setup.author ?? 'agent',
      setup.message ?? 'Thanks, we are on it.',
      Math.random().toString(36).slice(2),
      sentAt,
      setup.aiDraft === undefined ? 'Thanks, we are on it.' : setup.aiDraft,
      setup.aiSimilarity === undefined ? 100 : setup.aiSimilarity,
      setup.state ?? 'active',
    ],
  );
}
