import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import {
  CreateTriggerMessage,
  TriggerDto,
  TriggerWithCredentials,
  UpdateTriggerMessage,
} from '@aas/contracts';
import { SecretBox } from '@aas/platform';
import { QuotaExceededError, RemoteProblemError, ResourceNotFoundError, ValidationFailedError } from '@aas/problem-details';
import { isUUID } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { OwnedAgents } from '../agents/owned-agents';
import { SchedulerEnv } from '../config/scheduler.env';
import { TemplateRefused, checkTemplate } from './message-template';
import { givenSecretFault, hashTriggerToken, newTriggerSecret, newTriggerToken } from './trigger-credentials';
import { TriggerEntity } from './trigger.entity';
import { toTriggerDto } from './trigger.mapper';
import { TriggerStore } from './trigger.store';

const WEBHOOK_ONLY = ['verification', 'secret'] as const;
const EVENT_ONLY = ['source_agent_id', 'events'] as const;

/** Triggers of an agent: create, read, change, delete, and new credentials for an inbound endpoint. */
@Injectable()
export class TriggersService {
  constructor(
    private readonly store: TriggerStore,
    private readonly agents: OwnedAgents,
    private readonly secrets: SecretBox,
    private readonly config: ConfigService<SchedulerEnv, true>,
  ) {}

  async list(userId: string, agentId: string): Promise<TriggerDto[]> {
    const agent = await this.agents.get(userId, agentId);
    const triggers = await this.store.listOfAgent(userId, agentId);
    return triggers.filter((t) => Number(t.agentGeneration) === agent.generation).map(toTriggerDto);
  }

  async get(userId: string, agentId: string, triggerId: string): Promise<TriggerDto> {
    return toTriggerDto(await this.existing(userId, agentId, triggerId));
  }

  async create(message: CreateTriggerMessage): Promise<TriggerWithCredentials> {
    const agent = await this.agents.get(message.user_id, message.agent_id);
    const forbidden = message.kind === 'webhook' ? EVENT_ONLY : WEBHOOK_ONLY;
    refuseFields(message, forbidden, message.kind);
    let sourceGeneration: number | null = null;
    if (message.kind === 'event') {
      if (!message.source_agent_id || !message.events) {
        throw invalid(message.source_agent_id ? 'events' : 'source_agent_id', 'An event trigger needs source_agent_id and events');
      }
      sourceGeneration = await this.sourceGeneration(message.user_id, message.source_agent_id);
    }
    if (message.message_template !== undefined) checkedTemplate(message.message_template);
    if (message.secret !== undefined) checkedSecret(message.secret);
    const now = new Date();
    const credentials = message.kind === 'webhook' ? { token: newTriggerToken(), secret: message.secret ?? newTriggerSecret() } : undefined;
    const trigger = Object.assign(new TriggerEntity(), {
      id: randomUUID(),
      agentId: agent.agent_id,
      agentGeneration: String(agent.generation),
      userId: message.user_id,
      kind: message.kind,
      name: message.name ?? '',
      status: message.status ?? 'active',
      messageTemplate: message.message_template ?? null,
      verification: message.kind === 'webhook' ? (message.verification ?? 'none') : null,
      tokenHash: credentials ? hashTriggerToken(credentials.token) : null,
      secretSealed: credentials ? this.secrets.seal(credentials.secret) : null,
      sourceAgentId: message.source_agent_id ?? null,
      sourceAgentGeneration: sourceGeneration === null ? null : String(sourceGeneration),
      events: message.events ?? null,
      lastTriggeredAt: null,
      lastError: null,
      lastErrorAt: null,
      createdAt: now,
      updatedAt: now,
    } satisfies TriggerEntity);
    const limit = this.config.get('QUOTA_TRIGGERS_PER_AGENT', { infer: true });
    const outcome = await this.store.insertWithin(trigger, limit);
    if (!outcome.inserted) {
      throw new QuotaExceededError(
        `This agent has ${outcome.held} triggers, the most one agent may have (quota triggers_per_agent is ${limit}); delete one before creating another`,
        'triggers_per_agent',
        limit,
      );
    }
    return { trigger: toTriggerDto(trigger), ...credentials };
  }

  async update(message: UpdateTriggerMessage): Promise<TriggerDto> {
    const trigger = await this.existing(message.user_id, message.agent_id, message.trigger_id);
    refuseFields(message, trigger.kind === 'webhook' ? EVENT_ONLY : WEBHOOK_ONLY, trigger.kind);
    const changes: Partial<TriggerEntity> = {};
    if (message.source_agent_id !== undefined) {
      changes.sourceAgentId = message.source_agent_id;
      changes.sourceAgentGeneration = String(await this.sourceGeneration(message.user_id, message.source_agent_id));
    }
    if (typeof message.message_template === 'string') checkedTemplate(message.message_template);
    if (message.secret !== undefined) changes.secretSealed = this.secrets.seal(checkedSecret(message.secret));
    if (message.name !== undefined) changes.name = message.name;
    if (message.status !== undefined) changes.status = message.status;
    if (message.message_template !== undefined) changes.messageTemplate = message.message_template;
    if (message.verification !== undefined) changes.verification = message.verification;
    if (message.events !== undefined) changes.events = message.events;
    await this.store.update(trigger, changes);
    return toTriggerDto(Object.assign(trigger, changes, { updatedAt: new Date() }));
  }

  async delete(userId: string, agentId: string, triggerId: string): Promise<void> {
    await this.store.delete(await this.existing(userId, agentId, triggerId));
  }

  /** A new URL token and signing secret at once; the old ones stop working when this answers. */
  async rotate(userId: string, agentId: string, triggerId: string): Promise<TriggerWithCredentials> {
    const trigger = await this.existing(userId, agentId, triggerId);
    if (trigger.kind !== 'webhook') throw invalid('kind', 'Only webhook triggers have a URL and secret to rotate');
    const credentials = { token: newTriggerToken(), secret: newTriggerSecret() };
    const changes = { tokenHash: hashTriggerToken(credentials.token), secretSealed: this.secrets.seal(credentials.secret) };
    await this.store.update(trigger, changes);
    return { trigger: toTriggerDto(Object.assign(trigger, changes, { updatedAt: new Date() })), ...credentials };
  }

  /**
   * The caller's trigger of the caller's agent, or a 404 (the same for another user's, and for a trigger of
   * an earlier agent with this id whose cleanup has not run yet).
   */
  private async existing(userId: string, agentId: string, triggerId: string): Promise<TriggerEntity> {
    const agent = await this.agents.get(userId, agentId);
    const trigger = isUUID(triggerId) ? await this.store.findOwned(userId, agentId, triggerId) : null;
    if (!trigger || Number(trigger.agentGeneration) !== agent.generation) throw new ResourceNotFoundError('Trigger', triggerId);
    return trigger;
  }

  /** The source of an event trigger must be the caller's agent (another user's reads as unknown); its generation. */
  private async sourceGeneration(userId: string, sourceAgentId: string): Promise<number> {
    try {
      return (await this.agents.get(userId, sourceAgentId)).generation;
    } catch (error) {
      if (error instanceof RemoteProblemError && error.problem.status === 404) {
        throw invalid('source_agent_id', `source_agent_id ${sourceAgentId} names no agent of yours`);
      }
      throw error;
    }
  }
}

function refuseFields(message: object, fields: readonly string[], kind: string): void {
  const given = fields.find((field) => (message as Record<string, unknown>)[field] !== undefined);
  if (given) throw invalid(given, `${given} does not apply to ${kind} triggers`);
}

function checkedTemplate(template: string): void {
  try {
    checkTemplate(template);
  } catch (error) {
    if (error instanceof TemplateRefused) throw invalid('message_template', error.message);
    throw error;
  }
}

/** A sender's own secret, held to the form the Standard Webhooks libraries take. */
function checkedSecret(secret: string): string {
  const fault = givenSecretFault(secret);
  if (fault) throw invalid('secret', fault);
  return secret;
}

function invalid(field: string, message: string): ValidationFailedError {
  return new ValidationFailedError(message, [{ field, message }]);
}
