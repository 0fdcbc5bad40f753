// `GET /health` while the database answers: 200, with the backlog read in the same one query;
// degraded, still 200, past a threshold. The database cut off is in
// test/operability/database-outage.test.ts, which has a stack of its own to cut.
import { describe, expect, it } from 'vitest';
import { DEV_OPERATOR_TOKEN } from '../../scripts/worker-vars';
import { api, type ApiResponse } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { awaitLogLines } from '../support/logs';

type Part = { count: number; oldestSeconds?: number | null; overdueSeconds?: number | null; overThreshold: boolean };
type Backlog = Record<'outbox' | 'webhookDeliveries' | 'outgoingMail' | 'deadLetters', Part>;

const secondsOrNull = (value: unknown) => value === null || (Number.isInteger(value) && (value as number) >= 0);

describe('GET /health', () => {
  it('answers 200 without a credential when the database answers, with the backlog, in one round trip', async () => {
    const requestId = `health-${Math.random().toString(36).slice(2)}`;
    const response = await api('/health', { headers: { 'x-request-id': requestId } });
    expect(response.status).toBe(200);
    const { status, database, environment, backlog } = response.body as {
      status: string;
      database: string;
      environment: string;
      backlog: Backlog;
    };
    expect({ database, environment }).toEqual({ database: 'ok', environment: expect.any(String) });
    expect(Object.keys(backlog).sort()).toEqual(['deadLetters', 'outbox', 'outgoingMail', 'webhookDeliveries']);
    for (const [name, part] of Object.entries(backlog)) {
      expect(part.count, name).toBeGreaterThanOrEqual(0);
      expect(secondsOrNull(part.oldestSeconds ?? part.overdueSeconds ?? null), name).toBe(true);
    }
    // other files' work may be in the backlog now: the status agrees with it, whatever it is
    expect(status).toBe(Object.values(backlog).some((part) => part.overThreshold) ? 'degraded' : 'ok');
    const [line] = await awaitLogLines({ requestId });
    expect(line).toMatchObject({ route: '/health', status: 200, dbRoundTrips: 1 });
  });

  it('says degraded, still 200, when work is late past its threshold: each part counted and aged', async () => {
    const site = await newInstallation('health-backlog');
    const [inbox] = await rows<{ id: number }>(
      'SELECT id FROM inboxes WHERE installation_id = $1 ORDER BY id LIMIT 1',
      [site.id],
    );
    // an hour late each (no subscriber wants a `healthprobes` event; the endpoint is switched off)
    const [event] = await rows<{ id: number }>(
      "INSERT INTO events (installation_id, record_type, record_id, kind, occurred_at) VALUES ($1, 'healthprobes', 1, 'created', now() - interval '1 hour') RETURNING id::int",
      [site.id],
    );
    const [endpoint] = await rows<{ id: number }>(
      "INSERT INTO webhook_endpoints (installation_id, url, token, enabled) VALUES ($1, 'http://127.0.0.1:9/health', 'unused', false) RETURNING id",
      [site.id],
    );
    const [delivery] = await rows<{ id: number }>(
      `INSERT INTO webhook_deliveries (installation_id, endpoint_id, event, delivery_id, payload, next_attempt_at)
       VALUES ($1, $2, 'ticket.created', $3, '{}', now() - interval '1 hour') RETURNING id`,
      [site.id, endpoint!.id, `health-${site.id}`],
    );
    const [mail] = await rows<{ id: number }>(
      `INSERT INTO outbound_mails (installation_id, inbox_id, kind, mail, next_attempt_at)
       VALUES ($1, $2, 'notification', '{}', now() - interval '1 hour') RETURNING id`,
      [site.id, inbox!.id],
    );
    const [dead] = await rows<{ id: number }>(
      `INSERT INTO dead_letters (installation_id, queue, message_id, body, attempts, sent_at, dead_at)
       VALUES ($1, 'helpdesk-jobs', $2, '{"kind": "events.drain"}', 6, now() - interval '1 hour', now() - interval '1 hour') RETURNING id`,
      [site.id, `health-${site.id}`],
    );
    let response: ApiResponse;
    try {
      response = await api('/health');
    } finally {
      await rows('UPDATE events SET dispatched_at = now() WHERE id = $1', [event!.id]);
      await rows("UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE id = $1", [
        delivery!.id,
      ]);
      await rows("UPDATE outbound_mails SET status = 'failed' WHERE id = $1", [mail!.id]);
    }
    expect(response.status).toBe(200);
    const backlog = response.body.backlog as Backlog;
    expect(response.body.status).toBe('degraded');
    expect(backlog.outbox).toMatchObject({ count: expect.any(Number), overThreshold: true });
    expect(backlog.outbox.count).toBeGreaterThanOrEqual(1);
    expect(backlog.outbox.oldestSeconds).toBeGreaterThanOrEqual(3_600);
    expect(backlog.webhookDeliveries.count).toBeGreaterThanOrEqual(1);
    expect(backlog.webhookDeliveries).toMatchObject({ overThreshold: true });
    expect(backlog.webhookDeliveries.overdueSeconds).toBeGreaterThanOrEqual(3_600);
    expect(backlog.outgoingMail.count).toBeGreaterThanOrEqual(1);
    expect(backlog.outgoingMail).toMatchObject({ overThreshold: true });
    expect(backlog.outgoingMail.overdueSeconds).toBeGreaterThanOrEqual(3_600);
    expect(backlog.deadLetters.count).toBeGreaterThanOrEqual(1);
    expect(backlog.deadLetters).toMatchObject({ overThreshold: true });
    expect(backlog.deadLetters.oldestSeconds).toBeGreaterThanOrEqual(3_600);

    // the dead letter set aside by an operator is no longer owed
    const discarded = await api(`/operator/deadletters/${dead!.id}/discard.json`, {
      method: 'POST',
      key: DEV_OPERATOR_TOKEN,
    });
    expect(discarded.status, discarded.text).toBe(200);
    const [still] = await rows<{ open: number }>(
      'SELECT count(*)::int AS open FROM dead_letters WHERE id = $1 AND discarded_at IS NULL',
      [dead!.id],
    );
    expect(still!.open).toBe(0);
  });
});
