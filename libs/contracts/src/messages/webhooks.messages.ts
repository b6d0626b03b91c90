import { IntersectionType } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { CreateWebhookRequest, ListDeliveriesQuery, RedeliverSinceRequest, SendTestEventRequest, UpdateWebhookRequest } from '../dto/webhooks.dto';
import { AgentScopedMessage, WebhookScopedMessage } from './user-scoped.message';

export class AgentWebhooksMessage extends AgentScopedMessage {}
export class CreateWebhookMessage extends IntersectionType(CreateWebhookRequest, AgentScopedMessage) {}
export class WebhookRefMessage extends WebhookScopedMessage {}
export class UpdateWebhookMessage extends IntersectionType(UpdateWebhookRequest, WebhookScopedMessage) {}
export class ListDeliveriesMessage extends IntersectionType(ListDeliveriesQuery, WebhookScopedMessage) {}

export class DeliveryRefMessage extends WebhookScopedMessage {
  @IsString()
  @MaxLength(256)
  delivery_id!: string;
}

export class RedeliverMessage extends DeliveryRefMessage {}
export class SendTestEventMessage extends IntersectionType(SendTestEventRequest, WebhookScopedMessage) {}
export class RedeliverSinceMessage extends IntersectionType(RedeliverSinceRequest, WebhookScopedMessage) {}
