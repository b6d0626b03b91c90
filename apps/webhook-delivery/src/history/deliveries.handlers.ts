import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  DeliveryDto,
  DeliveryListResponse,
  DeliveryRefMessage,
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

  @MessagePattern(WebhooksPatterns.ListDeliveries)
  list(@Payload() message: ListDeliveriesMessage): Promise<DeliveryListResponse> {
    return this.deliveries.list(message);
  }

  @MessagePattern(WebhooksPatterns.GetDelivery)
  get(@Payload() message: DeliveryRefMessage): Promise<DeliveryDto> {
    return this.deliveries.get(message);
  }

  @MessagePattern(WebhooksPatterns.Redeliver)
  redeliver(@Payload() message: RedeliverMessage): Promise<DeliveryDto> {
    return this.deliveries.redeliver(message);
  }

  @MessagePattern(WebhooksPatterns.RedeliverSince)
  redeliverSince(@Payload() message: RedeliverSinceMessage): Promise<RedeliverSinceResponse> {
    return this.deliveries.redeliverSince(message);
  }

  @MessagePattern(WebhooksPatterns.SendTestEvent)
  sendTest(@Payload() message: SendTestEventMessage): Promise<DeliveryDto> {
    return this.deliveries.sendTest(message);
  }
}
