import { SchemaDefinition } from '@aas/platform';
import { DeliveryAttemptEntity } from './delivery-attempt.entity';
import { DeliveryEntity } from './delivery.entity';
import { CreateWebhooks1763900000000 } from './migrations/1763900000000-create-webhooks';
import { PendingDeliveriesIndex1763950000000 } from './migrations/1763950000000-pending-deliveries-index';
import { WebhookAgentGeneration1764200000000 } from './migrations/1764200000000-webhook-agent-generation';
import { DeliveryPendingSince1764300000000 } from './migrations/1764300000000-delivery-pending-since';
import { WebhookHealth1764400000000 } from './migrations/1764400000000-webhook-health';
import { DeliveryChains1764424000000 } from './migrations/1764424000000-delivery-chains';
import { DeliveryRuns1764970000000 } from './migrations/1764970000000-delivery-runs';
import { WebhookEntity } from './webhook.entity';

export const WEBHOOKS_SCHEMA: SchemaDefinition = {
  schema: 'webhooks',
  entities: [WebhookEntity, DeliveryEntity, DeliveryAttemptEntity],
  migrations: [
    CreateWebhooks1763900000000,
    PendingDeliveriesIndex1763950000000,
    WebhookAgentGeneration1764200000000,
    DeliveryPendingSince1764300000000,
    WebhookHealth1764400000000,
    DeliveryChains1764424000000,
    DeliveryRuns1764970000000,
  ],
};
