import { StartRunMessage, StartScheduledRunMessage, TriggeredRunStart } from '@aas/contracts';
import { apiRunStart } from './api-run-start';
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
});
