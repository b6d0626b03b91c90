import { CreatedWebhookDto, WebhookDto, WebhookHealthDto } from '@aas/contracts';
import { WebhookEntity } from '../database/webhook.entity';

/** `circuitOpenUntil`: while its circuit breaker is open (EndpointGate.circuitsOpenUntil). */
export function toWebhookDto(webhook: WebhookEntity, circuitOpenUntil?: Date): WebhookDto {
  return {
    webhook_id: webhook.id,
    agent_id: webhook.agentId,
    user_id: webhook.userId,
    url: webhook.url,
    events: webhook.events,
    status: webhook.status,
    created_at: webhook.createdAt.toISOString(),
    updated_at: webhook.updatedAt.toISOString(),
    health: toHealthDto(webhook, circuitOpenUntil),
  };
}

function toHealthDto(webhook: WebhookEntity, circuitOpenUntil: Date | undefined): WebhookHealthDto {
  return {
    consecutive_failures: webhook.consecutiveFailures,
    last_success_at: webhook.lastSuccessAt?.toISOString() ?? null,
    last_error: webhook.lastError,
    last_error_at: webhook.lastErrorAt?.toISOString() ?? null,
    // A disabled webhook gets no attempts, so its circuit says nothing until it is enabled again.
    circuit_open_until: webhook.status === 'active' ? (circuitOpenUntil?.toISOString() ?? null) : null,
    disabled_reason: webhook.status === 'disabled' ? webhook.disabledReason : null,
  };
}

export function toCreatedWebhookDto(webhook: WebhookEntity, signingSecret: string): CreatedWebhookDto {
  return {
    webhook_id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    signing_secret: signingSecret,
    status: webhook.status,
    created_at: webhook.createdAt.toISOString(),
  };
}
