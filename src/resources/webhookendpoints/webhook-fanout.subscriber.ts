import { sql, type SQL } from 'drizzle-orm';
import type { Subscriber } from '../../events/subscriber';
import { sendMade } from './delivery-message';
import { UNDECIDED } from './decide';
import { RECORD_TYPES, webhookEventsByRecordType } from './webhook-events';

/**
 * The deliveries of the events `events` (SQL over the event's row `e`): one to every enabled
 * endpoint made before the event that may want it (one narrowed to events wants one of the
 * record's family, `webhookEventsByRecordType`) and, for a ticket's, wants the ticket's inbox;
 * a trigger's run (`triggered`) goes to the endpoints its webhook actions name (action 10), and
 * to no other.
 * Each is written undecided: which webhook events it is, and the body, are decided when it is
 * first tried (`decide.ts`), where the history's rules tell them. Answers the rows' ids, with
 * their events' records for the consumer to read ahead.
 */
function deliveriesOf(events: SQL): SQL {
  return sql`
    INSERT INTO webhook_deliveries (installation_id, endpoint_id, event_id, event, delivery_id, ticket_id, payload, next_attempt_at)
    SELECT e.installation_id, w.id, e.id, ${UNDECIDED}, gen_random_uuid()::text,
           CASE e.record_type WHEN 'tickets' THEN e.record_id WHEN 'messages' THEN m.ticket_id END, ${UNDECIDED}, now()
      FROM events e
      LEFT JOIN ticket_messages m ON e.record_type = 'messages' AND m.id = e.record_id AND m.installation_id = e.installation_id
      LEFT JOIN tickets t ON t.id = CASE e.record_type WHEN 'tickets' THEN e.record_id WHEN 'messages' THEN m.ticket_id END AND t.installation_id = e.installation_id
      JOIN webhook_endpoints w ON w.installation_id = e.installation_id AND w.state = 'active' AND w.enabled AND w.created_at <= e.occurred_at
       AND CASE WHEN e.kind = 'triggered'
         -- a trigger's run that acted: the endpoints its webhook actions name, whatever they want
         THEN w.id IN (SELECT (a->>'value')::int FROM jsonb_array_elements(CASE WHEN e.data ? 'actions' THEN e.data->'actions' ELSE '[]' END) a
                        WHERE a->>'type' = '10' AND a->>'value' ~ '^[0-9]{1,9}$')
         ELSE (w.all_events OR EXISTS (SELECT 1 FROM webhook_endpoint_events v
                WHERE v.endpoint_id = w.id AND v.state = 'active' AND (${JSON.stringify(webhookEventsByRecordType())}::jsonb -> e.record_type) ? v.code))
          AND (w.all_inboxes OR t.id IS NULL OR EXISTS (SELECT 1 FROM webhook_endpoint_inboxes i
                WHERE i.endpoint_id = w.id AND i.state = 'active' AND i.inbox_id = t.inbox_id)) END
     WHERE ${events}
     ORDER BY e.id, w.id
    ON CONFLICT DO NOTHING
    RETURNING id, event_id, installation_id, ticket_id,
      (SELECT v.record_type FROM events v WHERE v.id = event_id) AS record_type, (SELECT v.record_id FROM events v WHERE v.id = event_id) AS record_id`;
}

/** The rows `deliveriesOf` made, with what the consumer may read ahead for their bodies. */
const madeOf = (rows: Record<string, unknown>[]) =>
  rows.map((row) => ({
    id: Number(row.id),
    hint: {
      eventId: Number(row.event_id),
      installationId: Number(row.installation_id),
      recordType: String(row.record_type),
      recordId: Number(row.record_id),
      ticketId: row.ticket_id === null ? null : Number(row.ticket_id),
    },
  }));

/**
 * Turns each write event into deliveries (`deliveriesOf`). The write itself writes them, in the
 * statement that closes its transaction (`inStatement`), and once it has committed they go on the
 * queue together (`webhooks.deliver`: one message tries them side by side); the drain writes those
 * of an event no write handled. One whose message is lost is found by the cron.
 */
export const webhookFanout: Subscriber = {
  name: 'webhooks.fanout',
  does: 'writes a delivery of the event to each endpoint made before it that may want it (`docs/resources/webhookendpoints.md`), decided when first tried, and queues them once committed',
  on: RECORD_TYPES.map((recordType) => ({ recordType })),
  // where the installation has an endpoint to send to (else the drain finds none)
  inStatement: {
    statement: deliveriesOf,
    wants: (installation) =>
      sql`EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.installation_id = ${installation} AND w.state = 'active' AND w.enabled)`,
    afterCommit: (env, rows) => sendMade(env, madeOf(rows)),
  },
  async handle(event, { tx, env, afterCommit }) {
    const { rows } = await tx.execute(deliveriesOf(sql`e.id = ${event.id}::bigint`));
    if (rows.length) afterCommit(() => sendMade(env, madeOf(rows)));
  },
};
