import { InboundHookMessage, StartTriggeredRunsResponse, TriggeredRunStart } from '@aas/contracts';
import { ConfigService } from '@nestjs/config';
import { InstallationChainKey, SecretBox, ServiceClient } from '@aas/platform';
import {
  PayloadTooLargeError,
  QuotaExceededError,
  RemoteProblemError,
  ResourceNotFoundError,
  TooManyRequestsError,
  UnauthorizedError,
  ValidationFailedError,
} from '@aas/problem-details';
import { createHmac, randomBytes } from 'node:crypto';
import { Registry } from 'prom-client';
import { Webhook } from 'svix';
import { RunStartAllowance } from '../allowance/run-start-allowance';
import { SchedulerEnv } from '../config/scheduler.env';
import { ExhaustedChains } from './exhausted-chains';
import { InboundCallLimits } from './inbound-call-limits';
import { InboundChains } from './inbound-chain';
import { InboundHooksService } from './inbound-hooks.service';
import { TriggerMetrics } from './trigger-metrics';
import { hashTriggerToken, newTriggerSecret, newTriggerToken } from './trigger-credentials';
import { TriggerEntity } from './trigger.entity';
import { FakeTriggerStore, triggerRow } from './trigger.store.fake';
import { TriggeredRunStarter } from './triggered-run-starter';

const AGENT = '00000000-0000-4000-8000-000000000001';
const HOOK = '00000000-0000-4000-a000-000000000001';
const BODY = '{"ref":"refs/heads/main"}';

/** The endpoint's and owner's allowances: counts what is charged, and refuses past `allowance`. */
class FakeLimits {
  charged = 0;
  allowance = Infinity;

  async charge(): Promise<void> {
    this.charged += 1;
    if (this.charged > this.allowance) throw new TooManyRequestsError('over', 30);
  }
}

describe(InboundHooksService.name, () => {
  const installationKey = randomBytes(32).toString('base64');
  const secrets = new SecretBox(installationKey);
  const chainKey = InstallationChainKey.derivedFrom(installationKey);
  const token = newTriggerToken();
  const secret = newTriggerSecret();
  const github = (body = BODY) => ({ 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` });

  function setup(
    changes: Partial<TriggerEntity> = {},
    outcome: StartTriggeredRunsResponse['outcomes'][number] = { run_id: 'run-1', created: true },
    allowance = Infinity,
  ) {
    const hook = triggerRow({ id: HOOK, agentId: AGENT, agentGeneration: '3', tokenHash: hashTriggerToken(token), secretSealed: secrets.seal(secret), ...changes });
    const store = new FakeTriggerStore([hook]);
    const asked: TriggeredRunStart[] = [];
    const services = {
      request: async (_pattern: string, message: { starts: TriggeredRunStart[] }) => (asked.push(...message.starts), { outcomes: message.starts.map(() => outcome) }),
    } as unknown as ServiceClient;
    const runs = new TriggeredRunStarter(services);
    const limits = new FakeLimits();
    const settings: Partial<SchedulerEnv> = { TRIGGER_MAX_DEPTH: 3, TRIGGER_PAYLOAD_MAX_BYTES: 1024 };
    const config = { get: (key: keyof SchedulerEnv) => settings[key] } as unknown as ConfigService<SchedulerEnv, true>;
    const starts = {
      takeOne: async () => {
        if (allowance-- <= 0) throw new TooManyRequestsError('The allowance is used up', 17);
      },
    } as unknown as RunStartAllowance;
    const chains = new InboundChains(chainKey, new ExhaustedChains(), config);
    const sut = new InboundHooksService(store, secrets, runs, limits as unknown as InboundCallLimits, new TriggerMetrics(new Registry()), chains, starts, config);
    const call = (message: Partial<InboundHookMessage> = {}) => sut.receive({ trigger_id: HOOK, token, body: BODY, headers: {}, ...message } as InboundHookMessage);
    return { sut, store, asked, call, limits };
  }

  describe('which calls reach the agent', () => {
    it('answers the same 404 for an id that is no uuid, an unknown or disabled endpoint, an event trigger and a wrong token', async () => {
      for (const [changes, message] of [
        [{}, { trigger_id: 'not-a-uuid' }],
        [{}, { trigger_id: '00000000-0000-4000-a000-000000000009' }],
        [{ status: 'disabled' }, {}],
        [{ kind: 'event' }, {}],
        [{}, { token: newTriggerToken() }],
        [{}, { token: 'short' }],
      ] as Array<[Partial<TriggerEntity>, Partial<InboundHookMessage>]>) {
        const { asked, call } = setup(changes);
        await expect(call(message)).rejects.toThrow(ResourceNotFoundError);
        await expect(call(message)).rejects.toThrow(/^Inbound endpoint .* not found$/);
        expect(asked).toEqual([]);
      }
    });

    it('checks the signature the trigger asks for: a missing or wrong one is a 401, starting nothing', async () => {
      const { asked, call } = setup({ verification: 'github' });
      await expect(call()).rejects.toThrow(UnauthorizedError);
      await expect(call({ headers: github('{"ref":"another body"}') })).rejects.toThrow(/does not match the body/);
      expect(asked).toEqual([]);
      await expect(call({ headers: github() })).resolves.toEqual({ run_id: 'run-1' });
    });

    it('refuses an empty or non-JSON body with a 400, once the caller is known', async () => {
      const { call } = setup();
      await expect(call({ body: '' })).rejects.toThrow(ValidationFailedError);
      await expect(call({ body: 'ref=main' })).rejects.toThrow('The request body is not JSON');
      await expect(call({ body: '', token: newTriggerToken() })).rejects.toThrow(ResourceNotFoundError);
    });
  });

  describe('the run of a call', () => {
    it("keys the run by the sender's delivery id, so a retried delivery starts nothing new", async () => {
      const { asked, call } = setup();
      await call({ headers: { 'x-github-delivery': 'gh-1', 'webhook-id': 'msg_1' } });
      await call({ headers: { 'idempotency-key': 'k-1' } });
      await call();
      await call();
      expect(asked.map((s) => s.delivery_key)).toEqual(['delivery:msg_1', 'delivery:k-1', expect.stringMatching(/^call:[0-9a-f-]{36}$/), expect.stringMatching(/^call:/)]);
      expect(asked[2].delivery_key).not.toBe(asked[3].delivery_key); // without an id each call is its own
      expect(asked[0]).toMatchObject({ agent_id: AGENT, trigger_id: HOOK, trigger_kind: 'webhook', agent_generation: 3, depth: 0 });
      expect(JSON.parse(asked[0].data_json!).payload).toEqual({ ref: 'refs/heads/main' });
    });

    it('keys a Svix-named call by its svix-id, after webhook-id and before the other ids', async () => {
      const { asked, call } = setup();
      await call({ headers: { 'svix-id': 'msg_s1', 'idempotency-key': 'k-1', 'x-github-delivery': 'gh-1' } });
      await call({ headers: { 'svix-id': 'msg_s1' } });
      await call({ headers: { 'webhook-id': 'msg_w1', 'svix-id': 'msg_s2' } });
      expect(asked.map((s) => s.delivery_key)).toEqual(['delivery:msg_s1', 'delivery:msg_s1', 'delivery:msg_w1']);
    });

    it('refuses a delivery id longer than 200 characters', async () => {
      const { asked, call } = setup();
      await expect(call({ headers: { 'webhook-id': 'x'.repeat(201) } })).rejects.toThrow(/webhook-id header is longer than 200/);
      expect(asked).toEqual([]);
    });

    it('records the start on the trigger only when the call made a new run', async () => {
      const repeated = setup({}, { run_id: 'run-1', created: false });
      await expect(repeated.call()).resolves.toEqual({ run_id: 'run-1' });
      expect(repeated.store.rows.get(HOOK)!.lastTriggeredAt).toBeNull();
      const fresh = setup();
      await fresh.call();
      expect(fresh.store.rows.get(HOOK)!.lastTriggeredAt).toEqual(expect.any(Date));
    });

    it("answers an agent gone as the endpoint's 404, naming no agent, and passes other refusals on", async () => {
      const gone = setup({}, { refused: { type: 'urn:aas:problem:not-found', title: 'Not Found', status: 404, detail: `Agent ${AGENT} not found` } });
      await expect(gone.call()).rejects.toThrow(`Inbound endpoint ${HOOK} not found`);
      const undeployed = setup({}, { refused: { type: 'urn:aas:problem:validation-failed', title: 'Bad Request', status: 400, detail: 'The agent is not deployed' } });
      const refusal = await undeployed.call().catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(RemoteProblemError);
      expect((refusal as RemoteProblemError).problem).toMatchObject({ status: 400, detail: 'The agent is not deployed' });
    });
  });

  describe('what is charged, and when', () => {
    it('charges the allowances only for calls that passed the token and signature checks', async () => {
      const { call, limits } = setup({ verification: 'github' });
      await expect(call({ token: newTriggerToken() })).rejects.toThrow(ResourceNotFoundError);
      await expect(call()).rejects.toThrow(UnauthorizedError);
      await expect(call({ headers: github('{"other":1}') })).rejects.toThrow(UnauthorizedError);
      expect(limits.charged).toBe(0);
      await call({ headers: github() });
      await expect(call({ body: '{"a":"\\u0000"}', headers: github('{"a":"\\u0000"}') })).rejects.toThrow(ValidationFailedError);
      expect(limits.charged).toBe(2);
    });

    it('refuses a verified call over its allowance with the 429, starting nothing', async () => {
      const { call, limits, asked } = setup();
      limits.allowance = 1;
      await call();
      await expect(call()).rejects.toThrow(TooManyRequestsError);
      expect(asked).toHaveLength(1);
    });
  });

  describe("the API's text rules", () => {
    it.each([
      ['a NUL escape in a value', '{"a":"x\\u0000y"}', '$.a'],
      ['a lone surrogate escape in a key', '{"ok":{"\\ud800":1}}', '$.ok'],
      ['a lone low surrogate in an array', '[1,"\\udc00"]', '$[1]'],
      ['a number JSON cannot carry', `{"n":1e400}`, '$.n'],
      ['nesting deeper than 32 levels', `${'['.repeat(40)}${']'.repeat(40)}`, '$'],
    ])('refuses %s with a 400 naming where, starting nothing', async (_label, body, path) => {
      const { call, asked } = setup();
      const refusal = await call({ body }).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(ValidationFailedError);
      expect((refusal as Error).message).toContain(`at ${path}`);
      expect(asked).toEqual([]);
    });

    it('takes any other JSON value: arrays, strings, numbers, null', async () => {
      for (const body of ['[1,2]', '"text 😀"', '42', 'null', '{"emoji":"\\ud83d\\ude00"}']) {
        const { call, asked } = setup();
        await expect(call({ body })).resolves.toEqual({ run_id: 'run-1' });
        expect(JSON.parse(asked[0].data_json!).payload).toEqual(JSON.parse(body));
      }
    });

    it('refuses a rendered message that would hold a NUL, whichever part of the view put it there', async () => {
      const { call, asked } = setup({ messageTemplate: 'event {{headers.x-event}}' });
      await expect(call({ headers: { 'x-event': 'a\u0000b' } })).rejects.toThrow(/rendered from message_template holds a NUL/);
      expect(asked).toEqual([]);
    });
  });

  describe('header secrets', () => {
    it('are checked, then withheld from the stored data, the dispatch and the template', async () => {
      const { call, asked } = setup({ verification: 'github', messageTemplate: '[{{headers.x-hub-signature-256}}][{{headers.x-gitlab-token}}][{{headers.x-github-event}}]' });
      await call({ headers: { ...github(), 'x-gitlab-token': 'glpat-secret', 'x-github-event': 'push' } });
      expect(asked[0].user_message).toBe('[][][push]');
      expect(JSON.parse(asked[0].data_json!).headers).toEqual({ 'x-github-event': 'push' });
    });

    it('withhold the Svix signature too, and keep its id and timestamp', async () => {
      const { call, asked } = setup({ verification: 'standard_webhooks', messageTemplate: '[{{headers.svix-signature}}][{{headers.svix-id}}]' });
      const at = new Date();
      const headers = { 'svix-id': 'msg_1', 'svix-timestamp': String(Math.floor(at.getTime() / 1000)), 'svix-signature': new Webhook(secret).sign('msg_1', at, BODY) };
      await call({ headers });
      expect(asked[0].user_message).toBe('[][msg_1]');
      expect(JSON.parse(asked[0].data_json!).headers).toEqual({ 'svix-id': 'msg_1', 'svix-timestamp': headers['svix-timestamp'] });
    });
  });

  describe('GitHub de-duplication', () => {
    it('keys a GitHub-verified call by its signed body, whatever X-GitHub-Delivery says', async () => {
      const { call, asked } = setup({ verification: 'github' });
      await call({ headers: { ...github(), 'x-github-delivery': 'd-1' } });
      await call({ headers: { ...github(), 'x-github-delivery': 'd-2-replayed' } });
      const other = '{"ref":"refs/heads/dev"}';
      await call({ body: other, headers: { ...github(other), 'x-github-delivery': 'd-3' } });
      expect(asked[0].delivery_key).toMatch(/^github-body:[0-9a-f]{64}$/);
      expect(asked[1].delivery_key).toBe(asked[0].delivery_key);
      expect(asked[2].delivery_key).not.toBe(asked[0].delivery_key);
    });
  });

  describe('bounds on fan-out', () => {
    const ROOT = '00000000-0000-4000-9000-0000000000aa';
    const delivered = (depth: number, key = chainKey, body = BODY, target = `${HOOK}/${token}`) => ({
      'webhook-id': 'msg_9',
      'aas-chain': key.sign({ rootRunId: ROOT, depth }, { deliveryId: 'msg_9', body, target, now: new Date() }),
    });

    it("continues the chain of this installation's signed delivery one hop deeper, and keeps the header out of the run", async () => {
      const { asked, call } = setup();
      await call({ headers: delivered(1) });
      expect(asked[0]).toMatchObject({ depth: 2, chain_root_id: ROOT });
      expect(JSON.parse(asked[0].data_json!).headers).toEqual({ 'webhook-id': 'msg_9' });
    });

    it('ignores a forged, replayed-onto-another-body or -endpoint, or absent chain header: the run starts a chain of its own', async () => {
      const { asked, call } = setup();
      await call({ headers: delivered(1, InstallationChainKey.derivedFrom(randomBytes(32).toString('base64'))) });
      await call({ headers: delivered(1, chainKey, '{"other":"body"}') });
      await call({ headers: delivered(1, chainKey, BODY, `${HOOK}/${newTriggerToken()}`) });
      await call();
      expect(asked.map((s) => [s.depth, s.chain_root_id])).toEqual([
        [0, undefined],
        [0, undefined],
        [0, undefined],
        [0, undefined],
      ]);
    });

    it("remembers a chain runs-service found full, and refuses that chain's next delivery without asking", async () => {
      const full = { type: 'urn:aas:problem:quota-exceeded', title: 'Unprocessable Entity', status: 422, detail: 'The chain has started 5 runs', quota: 'trigger_chain_runs', limit: 5 };
      const { asked, call } = setup({}, { refused: full });
      await expect(call({ headers: delivered(1) })).rejects.toMatchObject({ problem: full });
      const again = await call({ headers: delivered(2) }).catch((error: unknown) => error);
      expect(again).toBeInstanceOf(QuotaExceededError);
      expect(again).toMatchObject({ quota: 'trigger_chain_runs', limit: 5, message: 'The chain has started 5 runs' });
      expect(asked).toHaveLength(1);
    });

    it('refuses a delivery that would take its chain past TRIGGER_MAX_DEPTH with a 422 naming trigger_chain_depth', async () => {
      const { asked, call } = setup();
      const refusal = await call({ headers: delivered(3) }).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(QuotaExceededError);
      expect(refusal).toMatchObject({ quota: 'trigger_chain_depth', limit: 3 });
      expect(asked).toEqual([]);
    });

    it('refuses a body larger than TRIGGER_PAYLOAD_MAX_BYTES with a 413, once the caller is known', async () => {
      const { asked, call } = setup();
      await expect(call({ body: JSON.stringify({ a: 'x'.repeat(1024) }) })).rejects.toThrow(PayloadTooLargeError);
      await expect(call({ body: JSON.stringify({ a: 'x'.repeat(1024) }), token: newTriggerToken() })).rejects.toThrow(ResourceNotFoundError);
      expect(asked).toEqual([]);
    });

    it("answers 429 with Retry-After once the owner's allowance is used up, or while the owner has the most runs waiting", async () => {
      const { asked, call } = setup({}, undefined, 2);
      await call();
      await call();
      await expect(call()).rejects.toMatchObject({ retryAfterSeconds: 17 });
      expect(asked).toHaveLength(2);
      const waiting = setup({}, { refused: { type: 'urn:aas:problem:quota-exceeded', title: 'Unprocessable Entity', status: 422, detail: 'You have 5 runs waiting', quota: 'waiting_runs_per_user', limit: 5 } });
      const refusal = await waiting.call().catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(TooManyRequestsError);
      expect(refusal).toMatchObject({ retryAfterSeconds: 30, message: expect.stringMatching(/^You have 5 runs waiting/) });
    });
  });
});
