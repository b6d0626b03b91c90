import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  DeliveryDto,
  DeliveryListResponse,
  DeliveryRefMessage,
  HandlesRequest,
  ListDeliveriesMessage,
  RedeliverMessage,
  RedeliverSinceMessage,
  RedeliverSinceResponse,
  SendTestEventMessage,
  WebhooksPatterns,
} from '@aas/contracts';
import { DeliveriesService } from './deliveries.service';

@Controller()
export class DeliveriesHandlers {
  constructor(private readonly deliveries: DeliveriesService) {}

  @HandlesRequest(WebhooksPatterns.ListDeliveries)
  list(@Payload() message: ListDeliveriesMessage): Promise<DeliveryListResponse> {
    return this.deliveries.list(message);
  }

  @HandlesRequest(WebhooksPatterns.GetDelivery)
  get(@Payload() message: DeliveryRefMessage): Promise<DeliveryDto> {
    return this.deliveries.get(message);
  }

  @HandlesRequest(WebhooksPatterns.Redeliver)
  redeliver(@Payload() message: RedeliverMessage): Promise<DeliveryDto> {
    return this.deliveries.redeliver(message);
  }

  @HandlesRequest(WebhooksPatterns.RedeliverSince)
  redeliverSince(@Payload() message: RedeliverSinceMessage): Promise<RedeliverSinceResponse> {
    return this.deliveries.redeliverSince(message);
  }

  @HandlesRequest(WebhooksPatterns.SendTestEvent)
  sendTest(@Payload() message: SendTestEventMessage): Promise<DeliveryDto> {
    return this.deliveries.sendTest(message);
  }
}
