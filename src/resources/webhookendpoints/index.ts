import { defineModule } from '../../modules/module';
import { deliverWebhook, sweepDeliveries } from './deliver';
import { DELIVER_KIND } from './delivery-message';
import { webhookFanout } from './webhook-fanout.subscriber';
import { listWebhookDeliveriesRoute } from './list-webhook-deliveries.route';
import { redeliverWebhookRoute } from './redeliver-webhook.route';
import { testWebhookEndpointRoute } from './test-webhook-endpoint.route';
import { webhookEndpointsResource } from './webhookendpoints.resource';

/**
 * `/v2/webhookendpoints...`: where events are pushed (list, get, create, PATCH/PUT, delete), the
 * delivery log, redelivery and a test event sent on request; the fan-out from the write events,
 * the queue consumer that sends (signed, retried, in order per ticket), and the cron that finds
 * lost deliveries.
 */
export const webhookEndpointsModule = defineModule({
  name: 'webhooks',
  resources: [webhookEndpointsResource],
  routes: [listWebhookDeliveriesRoute, redeliverWebhookRoute, testWebhookEndpointRoute],
  subscribers: [webhookFanout],
  consumers: { [DELIVER_KIND]: deliverWebhook },
  cron: { sweep: sweepDeliveries },
});
