import { ReplayRunMessage, StartRunMessage, StartScheduledRunMessage, TriggeredRunStart } from '@aas/contracts';
import { runRow } from '../database/run-row.fake';
import { apiRunStart } from './api-run-start';
import { replayRunStart } from './replay-run-start';
import { scheduleFireStart } from './schedule-fire-start';
import { triggeredRunStart } from './triggered-run-start';

const owner = { user_id: '0b6c1d8e-2f5a-4c3b-9d7e-1a2b3c4d5e6f', agent_id: '11111111-1111-4111-8111-111111111111' };

describe('the run sources', () => {
  it('an API start: the client key in its own namespace, its goal, mode and deploy check', () => {
    expect(apiRunStart({ ...owner, idempotency_key: 'k', user_message: 'go', run_mode: 'build', skip_deploy_check: true } as StartRunMessage)).toEqual({
      userId: owner.user_id,
      agentId: owner.agent_id,
      idempotencyKey: 'api:k',
      runMode: 'build',
      goal: 'go',
      trigger: { runKind: 'api', scheduleAgentId: null },
      skipDeployCheck: true,
    });
    expect(apiRunStart(owner as StartRunMessage)).toMatchObject({ idempotencyKey: null, runMode: 'run', goal: null, skipDeployCheck: false });
  });

  it("a schedule's fire (or backfill): one key per agent and fire time, its due time and generation, a deployed agent's run", () => {
    const fire: StartScheduledRunMessage = { ...owner, fire_time: '2026-03-02T10:00:00.000Z', agent_generation: 4 };
    expect(scheduleFireStart(fire)).toEqual({
      userId: owner.user_id,
      agentId: owner.agent_id,
      idempotencyKey: `schedule:${owner.agent_id}:${Date.parse(fire.fire_time)}`,
      runMode: 'run',
      goal: null,
      trigger: { runKind: 'schedule', scheduleAgentId: owner.agent_id },
      skipDeployCheck: false,
      dueAt: new Date(fire.fire_time),
      agentGeneration: 4,
    });
  });

  it("a trigger's start: keyed by trigger and delivery, its chain, and its data whether sent as an object or as JSON text", () => {
    const start = {
      ...owner,
      trigger_id: 't1',
      trigger_kind: 'webhook',
      agent_generation: 2,
      delivery_key: 'd1',
      user_message: 'hello',
      depth: 1,
      chain_root_id: 'root',
      data_json: '{"payload":{"a":1}}',
    } as TriggeredRunStart;
    expect(triggeredRunStart(start)).toEqual({
      userId: owner.user_id,
      agentId: owner.agent_id,
      idempotencyKey: 'trigger:t1:d1',
      runMode: 'run',
      goal: 'hello',
      trigger: { runKind: 'webhook', scheduleAgentId: null, triggerId: 't1', depth: 1, chainRootId: 'root', data: { payload: { a: 1 } } },
      skipDeployCheck: false,
      agentGeneration: 2,
    });
    expect(triggeredRunStart({ ...start, data_json: undefined, data: { b: 2 } }).trigger.data).toEqual({ b: 2 });
  });

  it("an event trigger's start links its source run from the data; an inbound call's has none", () => {
    const source = '22222222-2222-4222-8222-222222222222';
    const start = { ...owner, trigger_id: 't1', trigger_kind: 'event', agent_generation: 2, delivery_key: `run:${source}:run.completed`, depth: 1 } as TriggeredRunStart;
    expect(triggeredRunStart({ ...start, data: { source_run: { run_id: source } } }).trigger.sourceRunId).toBe(source);
    expect(triggeredRunStart({ ...start, data: { source_run: { run_id: 'not a uuid' } } }).trigger.sourceRunId).toBeUndefined();
    expect(triggeredRunStart({ ...start, trigger_kind: 'webhook', data: { source_run: { run_id: source } } }).trigger.sourceRunId).toBeUndefined();
  });

  it("a replay: the API's run with its origin's input and trigger, keyed like a start, pinned when asked", () => {
    const origin = runRow({ agentId: owner.agent_id, userId: owner.user_id, runMode: 'build', goal: 'again', runKind: 'webhook', triggerKind: 'webhook' });
    Object.assign(origin, { triggerId: 't1', triggerData: { payload: { a: 1 } }, triggerDepth: 2, chainRootId: 'root', scheduledFor: new Date() });
    const message = { ...owner, run_id: origin.id, idempotency_key: 'k' } as ReplayRunMessage;
    expect(replayRunStart(message, origin, 7)).toEqual({
      userId: owner.user_id,
      agentId: owner.agent_id,
      idempotencyKey: 'api:k',
      runMode: 'build',
      goal: 'again',
      trigger: { runKind: 'api', triggerKind: 'webhook', scheduleAgentId: null, triggerId: 't1', data: { payload: { a: 1 } } },
      skipDeployCheck: true,
      replay: { of: origin.id, pinnedInstructionsVersionId: 7 },
    });
    const plain = replayRunStart({ ...message, idempotency_key: undefined }, runRow(), null);
    expect(plain).toMatchObject({ idempotencyKey: null, trigger: { runKind: 'api', triggerKind: 'api', scheduleAgentId: null } });
    expect(plain.trigger).not.toHaveProperty('triggerId');
    expect(plain.replay?.pinnedInstructionsVersionId).toBeNull();
  });
});
