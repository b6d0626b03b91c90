import { Module } from '@nestjs/common';
import { WebhookSender } from './webhook-sender';

@Module({ providers: [WebhookSender], exports: [WebhookSender] })
export class OutboundModule {}
