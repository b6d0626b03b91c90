import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  AgentTriggersMessage,
  CreateTriggerMessage,
  HandlesRequest,
  InboundHookMessage,
  InboundHookResponse,
  SchedulerPatterns,
  TriggerDto,
  TriggerListResponse,
  TriggerRefMessage,
  TriggerWithCredentials,
  UpdateTriggerMessage,
} from '@aas/contracts';
import { InboundHooksService } from './inbound-hooks.service';
import { TriggersService } from './triggers.service';

@Controller()
export class TriggersHandlers {
  constructor(
    private readonly triggers: TriggersService,
    private readonly inbound: InboundHooksService,
  ) {}

  @HandlesRequest(SchedulerPatterns.ListTriggers)
  async list(@Payload() message: AgentTriggersMessage): Promise<TriggerListResponse> {
    return { triggers: await this.triggers.list(message.user_id, message.agent_id) };
  }

  @HandlesRequest(SchedulerPatterns.CreateTrigger)
  create(@Payload() message: CreateTriggerMessage): Promise<TriggerWithCredentials> {
    return this.triggers.create(message);
  }

  @HandlesRequest(SchedulerPatterns.GetTrigger)
  get(@Payload() message: TriggerRefMessage): Promise<TriggerDto> {
    return this.triggers.get(message.user_id, message.agent_id, message.trigger_id);
  }

  @HandlesRequest(SchedulerPatterns.UpdateTrigger)
  update(@Payload() message: UpdateTriggerMessage): Promise<TriggerDto> {
    return this.triggers.update(message);
  }

  @HandlesRequest(SchedulerPatterns.DeleteTrigger)
  async delete(@Payload() message: TriggerRefMessage): Promise<{ deleted: true }> {
    await this.triggers.delete(message.user_id, message.agent_id, message.trigger_id);
    return { deleted: true };
  }

  @HandlesRequest(SchedulerPatterns.RotateTrigger)
  rotate(@Payload() message: TriggerRefMessage): Promise<TriggerWithCredentials> {
    return this.triggers.rotate(message.user_id, message.agent_id, message.trigger_id);
  }

  @HandlesRequest(SchedulerPatterns.InboundHook)
  receive(@Payload() message: InboundHookMessage): Promise<InboundHookResponse> {
    return this.inbound.receive(message);
  }
}
