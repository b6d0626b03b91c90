import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InboundHookMessage, InboundHookResponse, isWellFormedText, jsonValueFault } from '@aas/contracts';
import { SecretBox } from '@aas/platform';
import { RemoteProblemError, ResourceNotFoundError, UnauthorizedError, ValidationFailedError } from '@aas/problem-details';
import { isUUID } from 'class-validator';
import { createHash, randomUUID } from 'node:crypto';
import { RunStartAllowance } from '../allowance/run-start-allowance';
import { SchedulerEnv } from '../config/scheduler.env';
import { withoutSecretHeaders } from './header-secrets';
import { InboundChains, withoutChainHeader } from './inbound-chain';
import { InboundCallLimits } from './inbound-call-limits';
import { SignatureRefused, verifyInboundSignature } from './inbound-verification';
import { renderMessage } from './message-template';
import { checkInboundPayload } from './trigger-payload';
import { tokenMatches } from './trigger-credentials';
import { TriggerEntity } from './trigger.entity';
import { TriggerMetrics } from './trigger-metrics';
import { TriggerStore } from './trigger.store';
import { TriggeredRunStarter } from './triggered-run-starter';
import { waitingRunsFull } from './waiting-runs-full';

/**
 * Headers that name a delivery: a repeat within 24 hours answers the first delivery's run. webhook-id before
 * svix-id, the order in which a Standard Webhooks signature is checked (inbound-verification.ts).
 */
const DELIVERY_ID_HEADERS = ['webhook-id', 'svix-id', 'x-github-delivery', 'idempotency-key'];
const DELIVERY_ID_MAX = 200;

/**
 * One call to an inbound webhook endpoint, in this order: the trigger is found by id and its token (an
 * unknown, disabled or deleted trigger and a wrong token are the same 404, which says nothing of the
 * agent), the signature is checked as the trigger asks (401); only then is the call charged to the
 * endpoint's and its owner's allowances (429), the body held to TRIGGER_PAYLOAD_MAX_BYTES (413) and to
 * the API's rules (400), the chain it continues checked (422, for this installation's own deliveries),
 * the message rendered on its budget, one run taken from the owner's allowance of triggered runs (429),
 * and one run started through runs-service, committed before the answer (its refusals: 422, or 429 for
 * the owner's waiting runs). The delivery id keys the run, so a sender's retry starts nothing new.
 */
@Injectable()
export class InboundHooksService {
  constructor(
    private readonly store: TriggerStore,
    private readonly secrets: SecretBox,
    private readonly runs: TriggeredRunStarter,
    private readonly limits: InboundCallLimits,
    private readonly metrics: TriggerMetrics,
    // The bounds on fan-out: the payload a run keeps, the chain the call continues, the owner's allowance of triggered runs.
    private readonly chains: InboundChains,
    private readonly allowance: RunStartAllowance,
    private readonly config: ConfigService<SchedulerEnv, true>,
  ) {}

  async receive(message: InboundHookMessage): Promise<InboundHookResponse> {
    const trigger = await this.authenticated(message);
    await this.limits.charge(trigger);
    checkInboundPayload(message.body, this.config.get('TRIGGER_PAYLOAD_MAX_BYTES', { infer: true }));
    const payload = parsedPayload(message.body);
    const key = deliveryKey(trigger, message);
    const chain = this.chains.linkOf(message);
    const headers = withoutChainHeader(withoutSecretHeaders(message.headers));
    const rendered = renderMessage(trigger.messageTemplate, {
      payload,
      headers,
      trigger: { id: trigger.id, name: trigger.name, kind: trigger.kind },
    });
    if (rendered?.cut) this.metrics.messageCut(rendered.cut);
    if (rendered && !isWellFormedText(rendered.text)) {
      throw invalid('message_template', 'The message rendered from message_template holds a NUL (U+0000) character or an unpaired UTF-16 surrogate');
    }
    await this.allowance.takeOne(trigger.userId);
    const outcome = await this.runs.startOne({
      user_id: trigger.userId,
      agent_id: trigger.agentId,
      trigger_id: trigger.id,
      trigger_kind: 'webhook',
      agent_generation: Number(trigger.agentGeneration),
      delivery_key: key,
      user_message: rendered?.text,
      ...chain,
      // As text: runs-service parses it once instead of walking it field by field (TriggeredRunStart.data_json).
      data_json: JSON.stringify({ payload, headers }),
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

/** Any JSON value, held to the text, number and depth rules of the API's own bodies (docs/triggers.md). */
function parsedPayload(body: string): unknown {
  if (body === '') throw new ValidationFailedError('A JSON body is required (Content-Type: application/json)');
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    throw new ValidationFailedError('The request body is not JSON');
  }
  const fault = jsonValueFault(payload);
  if (fault) throw invalid(`body${fault.path.slice(1)}`, `The request body breaks a rule at ${fault.path}: ${fault.rule}`);
  return payload;
}

/**
 * What keys the run. GitHub signs the body but not X-GitHub-Delivery, so a GitHub-verified call is keyed by
 * the digest of its signed body: a captured call replayed with a new delivery id within 24 hours answers
 * the first call's run. Otherwise the first of webhook-id and svix-id (signed by Standard Webhooks),
 * X-GitHub-Delivery and Idempotency-Key; without any, each call is its own.
 */
function deliveryKey(trigger: TriggerEntity, message: InboundHookMessage): string {
  if (trigger.verification === 'github') return `github-body:${createHash('sha256').update(message.body, 'utf8').digest('hex')}`;
  const name = DELIVERY_ID_HEADERS.find((header) => message.headers[header]);
  if (!name) return `call:${randomUUID()}`;
  const id = message.headers[name];
  if (id.length > DELIVERY_ID_MAX) throw new ValidationFailedError(`The ${name} header is longer than ${DELIVERY_ID_MAX} characters`);
  return `delivery:${id}`;
}

function invalid(field: string, message: string): ValidationFailedError {
  return new ValidationFailedError(message, [{ field, message }]);
}
