import { AgentEntity } from '../database/agent.entity';
import { toAgentDto } from './agent.mapper';
import { newAgentDefaults } from './agent.store.fake';

function agent(overrides: Partial<AgentEntity> = {}): AgentEntity {
  return Object.assign(new AgentEntity(), {
    id: '7d0c4d6e-7a5b-4b47-9a53-5a0f0f1f0c11',
    seq: '1',
    userId: 'u',
    workspaceId: 'w',
    ...newAgentDefaults(),
    createdAt: new Date('2026-01-02T03:04:05Z'),
    ...overrides,
  });
}

describe(toAgentDto.name, () => {
  it('shows a new agent as the spec describes: nulls present, latest_run_id empty, no deployed_at', () => {
    const dto = toAgentDto(agent());
    expect(dto.latest_run_id).toBe('');
    expect(dto.has_runs).toBe(false);
    expect(dto.agent_name).toBeNull();
    expect(dto.latest_run_status).toBeNull();
    expect('deployed_at' in dto).toBe(false);
    expect(dto.deployment_state).toBe('not_deployed');
  });

  it('adds deployed_at in UTC once deployed, and the name object when named', () => {
    const dto = toAgentDto(
      agent({ deploymentState: 'deployed', deployedAt: new Date('2026-05-06T07:08:09.010Z'), name: 'Triage', nameExplanation: null }),
    );
    expect(dto.deployed_at).toBe('2026-05-06T07:08:09.010Z');
    expect(dto.agent_name).toEqual({ name: 'Triage', explanation: null });
  });

  it('never leaks internal columns', () => {
    const keys = Object.keys(toAgentDto(agent({ policyType: 'x', ownerUserId: 'o' })));
    for (const internal of ['seq', 'user_id', 'owner_user_id', 'policy_type', 'created_at', 'is_subagent']) {
      expect(keys).not.toContain(internal);
    }
  });
});
