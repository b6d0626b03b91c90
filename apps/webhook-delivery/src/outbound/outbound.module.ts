import { Module } from '@nestjs/common';
import { HostLookup, WebhookUrlCheck } from './webhook-url-check';
import { WebhookSender } from './webhook-sender';

/** Calls to receivers, and what a webhook URL must be for this installation to call it. */
@Module({ providers: [WebhookSender, HostLookup, WebhookUrlCheck], exports: [WebhookSender, WebhookUrlCheck] })
export class OutboundModule {}
