import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DeliveryDto, DeliveryListResponse, ListDeliveriesMessage, RedeliverMessage, WebhooksPatterns } from '@aas/contracts';
import { DeliveriesService } from './deliveries.service';

@Controller()
export class DeliveriesHandlers {
  constructor(private readonly deliveries: DeliveriesService) {}

  @MessagePattern(WebhooksPatterns.ListDeliveries)
  list(@Payload() message: ListDeliveriesMessage): Promise<DeliveryListResponse> {
    return this.deliveries.list(message);
  }

  @MessagePattern(WebhooksPatterns.Redeliver)
  redeliver(@Payload() message: RedeliverMessage): Promise<DeliveryDto> {
    return this.deliveries.redeliver(message);
  }
}
