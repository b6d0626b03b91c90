import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InboundHookMessage, InboundHookResponse } from '@aas/contracts';
import { SecretBox } from '@aas/platform';
import { RemoteProblemError, ResourceNotFoundError, UnauthorizedError, ValidationFailedError } from '@aas/problem-details';
import { isUUID } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { RunStartAllowance } from '../allowance/run-start-allowance';
import { SchedulerEnv } from '../config/scheduler.env';
import { InboundChains, withoutChainHeader } from './inbound-chain';
import { SignatureRefused, verifyInboundSignature } from './inbound-verification';
import { renderMessage } from './message-template';
import { checkInboundPayload } from './trigger-payload';
import { tokenMatches } from './trigger-credentials';
import { TriggerEntity } from './trigger.entity';
import { TriggerStore } from './trigger.store';
import { TriggeredRunStarter } from './triggered-run-starter';
import { waitingRunsFull } from './waiting-runs-full';

/** Headers that name a delivery: a repeat within 24 hours answers the first delivery's run. */
const DELIVERY_ID_HEADERS = ['webhook-id', 'x-github-delivery', 'idempotency-key'];
const DELIVERY_ID_MAX = 200;

/**
 * One call to an inbound webhook endpoint: the trigger is found by id and its
 * token (an unknown, disabled or deleted trigger and a wrong token are the same
 * 404, which says nothing of the agent), the signature is checked as the trigger
 * asks (401), then one run starts through runs-service, committed before the
 * answer. The delivery id keys the run, so a sender's retry starts nothing new.
 */
@Injectable()
export class InboundHooksService {
  constructor(
    private readonly store: TriggerStore,
    private readonly secrets: SecretBox,
    private readonly runs: TriggeredRunStarter,
    // The bounds on fan-out: the payload a run keeps, the chain the call continues, the owner's allowance of triggered runs.
    private readonly chains: InboundChains,
    private readonly allowance: RunStartAllowance,
    private readonly config: ConfigService<SchedulerEnv, true>,
  ) {}

  async receive(message: InboundHookMessage): Promise<InboundHookResponse> {
    const trigger = await this.authenticated(message);
    checkInboundPayload(message.body, this.config.get('TRIGGER_PAYLOAD_MAX_BYTES', { infer: true }));
    const payload = parsedBody(message.body);
    const chain = this.chains.linkOf(message);
    await this.allowance.takeOne(trigger.userId);
    const headers = withoutChainHeader(message.headers);
    const userMessage = renderMessage(trigger.messageTemplate, {
      payload,
      headers,
      trigger: { id: trigger.id, name: trigger.name, kind: trigger.kind },
    });
    const outcome = await this.runs.startOne({
      user_id: trigger.userId,
      agent_id: trigger.agentId,
      trigger_id: trigger.id,
      trigger_kind: 'webhook',
      agent_generation: Number(trigger.agentGeneration),
      delivery_key: deliveryKey(message.headers),
      user_message: userMessage,
      ...chain,
      data: { payload, headers },
    });
    // The agent gone (or its id taken by a new agent): the same 404 as any unknown endpoint, naming no agent.
    if ('refused' in outcome && outcome.refused.status === 404) throw new ResourceNotFoundError('Inbound endpoint', message.trigger_id);
    if ('refused' in outcome) this.chains.refused(chain, outcome.refused);
    if ('refused' in outcome) throw waitingRunsFull(outcome.refused) ?? new RemoteProblemError(outcome.refused);
    if (outcome.created) await this.store.recordStarted([trigger.id]);
    return { run_id: outcome.run_id };
  }

  private async authenticated(message: InboundHookMessage): Promise<TriggerEntity> {
    const trigger = isUUID(message.trigger_id) ? await this.store.findWebhook(message.trigger_id) : null;
    if (!trigger || trigger.status !== 'active' || !tokenMatches(message.token, trigger.tokenHash)) {
      throw new ResourceNotFoundError('Inbound endpoint', message.trigger_id);
    }
    try {
      verifyInboundSignature(trigger.verification ?? 'none', this.secrets.open(trigger.secretSealed!), message.body, message.headers);
    } catch (error) {
      if (error instanceof SignatureRefused) throw new UnauthorizedError(error.message);
      throw error;
    }
    return trigger;
  }
}

function parsedBody(body: string): unknown {
  if (body === '') throw new ValidationFailedError('A JSON body is required (Content-Type: application/json)');
  try {
    return JSON.parse(body);
  } catch {
    throw new ValidationFailedError('The request body is not JSON');
  }
}

function deliveryKey(headers: Record<string, string>): string {
  const name = DELIVERY_ID_HEADERS.find((header) => headers[header]);
  if (!name) return `call:${randomUUID()}`;
  const id = headers[name];
  if (id.length > DELIVERY_ID_MAX) throw new ValidationFailedError(`The ${name} header is longer than ${DELIVERY_ID_MAX} characters`);
  return `delivery:${id}`;
}
