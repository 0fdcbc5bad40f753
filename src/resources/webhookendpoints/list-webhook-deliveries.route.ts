import { webhookDeliveries } from '../../db/schema';
import { childListRoute } from '../../engine';
import { webhookDeliveriesResource } from './webhook-deliveries.resource';
import { webhookEndpointsResource } from './webhookendpoints.resource';

/** `GET /v2/webhookendpoints/{id}/deliveries.json` */
export const listWebhookDeliveriesRoute = childListRoute(
  webhookEndpointsResource,
  webhookDeliveriesResource,
  webhookDeliveries.endpointId,
  {
    path: 'deliveries.json',
    operationId: 'listWebhookDeliveries',
    summary: "An endpoint's delivery log, paginated",
    description:
      "Every delivery made for the endpoint, oldest first, with the list's `filter` (`event`, `status`, `statusCode`, `attempts`, `deliveryId`, `ticket`, the audit set), `orderBy` and paging: each one's status (pending, delivered, failed), the last try's `statusCode`, `latencyMs` and `lastError`, when it was tried and is due next, and the `payload` as sent. A delivery the write made shows once its webhook event is decided. Another installation's or a deleted endpoint is a 404. See docs/resources/webhookendpoints.md.",
  },
);
