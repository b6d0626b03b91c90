import { TriggerDto } from '@aas/contracts';
import { TriggerEntity } from './trigger.entity';

/** The fields of the other kind are left out; nothing of the token or secret is ever shown here. */
export function toTriggerDto(trigger: TriggerEntity): TriggerDto {
  const dto: TriggerDto = {
    trigger_id: trigger.id,
    agent_id: trigger.agentId,
    kind: trigger.kind,
    name: trigger.name,
    status: trigger.status,
    message_template: trigger.messageTemplate,
    last_triggered_at: trigger.lastTriggeredAt?.toISOString() ?? null,
    last_error: trigger.lastError,
    last_error_at: trigger.lastErrorAt?.toISOString() ?? null,
    created_at: trigger.createdAt.toISOString(),
    updated_at: trigger.updatedAt.toISOString(),
  };
  if (trigger.kind === 'webhook') dto.verification = trigger.verification ?? 'none';
  else {
    dto.source_agent_id = trigger.sourceAgentId!;
    dto.events = trigger.events ?? [];
  }
  return dto;
}
