// The webhook benchmark's baseline: a bare Queue producer and consumer doing the fetches the
// service's deliveries do, and nothing else (no database, no outbox, no lease, no log).
//
//   POST /events   {"receivers": [url...], "payload": "<a delivery body>", "event": "ticket.priority"}
//                  one event "committed": its `occurredAt` set to now, one message per receiver
//                  put on the queue in one batch, as the service's fan-out puts its deliveries
//
// The consumer runs a batch's messages side by side (as src/jobs/queue.ts does), and each is the
// service's POST (src/resources/webhookendpoints/deliver.ts): the same signature headers over
// the same body, a 10 s timeout, no redirects followed, the answer's body dropped.
import { hmacHex } from '../../src/lib/webhook-signature';

interface Env {
  DELIVERIES: Queue<Delivery>;
}
interface Delivery {
  url: string;
  event: string;
  deliveryId: string;
  body: string;
}

const TOKEN = 'bench-bare-webhooks-token';

async function post(delivery: Delivery): Promise<void> {
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'helpdesk-webhooks/1',
    'x-desk-event': delivery.event,
    'x-desk-delivery': delivery.deliveryId,
    'x-desk-signature': await hmacHex(TOKEN, delivery.body),
    'x-desk-timestamp': String(timestamp),
    'x-desk-timestamp-signature': await hmacHex(TOKEN, `${timestamp}.${delivery.body}`),
  };
  const response = await fetch(delivery.url, {
    method: 'POST',
    headers,
    body: delivery.body,
    redirect: 'manual',
    signal: AbortSignal.timeout(10_000),
  });
  await response.body?.cancel();
  if (response.status < 200 || response.status >= 300) throw new Error(`answered ${response.status}`);
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (request.method !== 'POST' || new URL(request.url).pathname !== '/events')
      return new Response('not found', { status: 404 });
    const { receivers, payload, event } = (await request.json()) as {
      receivers: string[];
      payload: string;
      event: string;
    };
    const body = JSON.stringify({ ...(JSON.parse(payload) as object), occurredAt: new Date().toISOString() });
    await env.DELIVERIES.sendBatch(
      receivers.map((url) => ({ body: { url, event, deliveryId: crypto.randomUUID(), body } })),
    );
    return new Response(null, { status: 202 });
  },
  async queue(batch: MessageBatch<Delivery>): Promise<void> {
    await Promise.all(
      batch.messages.map(async (message) => {
        try {
          await post(message.body);
          message.ack();
        } catch {
          message.retry();
        }
      }),
    );
  },
} satisfies ExportedHandler<Env, Delivery>;
