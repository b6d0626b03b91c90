import { IsString, IsUUID, MaxLength } from 'class-validator';
import { CreateWebhookRequest, ListDeliveriesQuery, UpdateWebhookRequest } from '../dto/webhooks.dto';

export class AgentWebhooksMessage {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(256)
  agent_id!: string;
}

export class CreateWebhookMessage extends CreateWebhookRequest {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(256)
  agent_id!: string;
}

export class WebhookRefMessage {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(256)
  agent_id!: string;

  @IsString()
  @MaxLength(256)
  webhook_id!: string;
}

export class UpdateWebhookMessage extends UpdateWebhookRequest {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(256)
  agent_id!: string;

  @IsString()
  @MaxLength(256)
  webhook_id!: string;
}

export class ListDeliveriesMessage extends ListDeliveriesQuery {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(256)
  agent_id!: string;

  @IsString()
  @MaxLength(256)
  webhook_id!: string;
}

export class RedeliverMessage {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(256)
  agent_id!: string;

  @IsString()
  @MaxLength(256)
  webhook_id!: string;

  @IsString()
  @MaxLength(256)
  delivery_id!: string;
}
