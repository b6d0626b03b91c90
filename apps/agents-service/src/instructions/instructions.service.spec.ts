import { CreateAgentMessage, RestPlanStep } from '@aas/contracts';
import { QuotaExceededError, ResourceNotFoundError } from '@aas/problem-details';
import { createHash } from 'node:crypto';
import { FakeAgentStore } from '../agents/agent.store.fake';
import { AgentsService } from '../agents/agents.service';
import { AccessAnnouncer } from '../common/access-announcer';
import { FakeAccessAnnouncer } from '../common/access-announcer.fake';
import { AgentsEnv } from '../config/agents.env';
import { fakeAgentsConfig } from '../config/agents-config.fake';
import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { FakeUserQuotaStore } from '../quotas/user-quota.store.fake';
import { UserQuotas } from '../quotas/user-quotas';
import { FakeUserStore } from '../users/user.store.fake';
import { FakeWorkspaceStore } from '../workspaces/workspace.store.fake';
import { FakeInstructionStore } from './instruction.store.fake';
import { InstructionsService } from './instructions.service';

describe(InstructionsService.name, () => {
  async function setup(settings: Partial<AgentsEnv> = {}) {
    const db = new InMemoryDatabase();
    const config = fakeAgentsConfig(settings);
    const agents = new AgentsService(
      new FakeAgentStore(db),
      new FakeWorkspaceStore(db),
      db.transactions,
      new UserQuotas(config, new FakeUserQuotaStore(db)),
      new FakeAccessAnnouncer() as unknown as AccessAnnouncer,
    );
    /** The service over the same tables, with other settings. */
    const serviceWith = (other: Partial<AgentsEnv>) =>
      new InstructionsService(new FakeInstructionStore(db), new FakeUserStore(db), db.transactions, agents, fakeAgentsConfig(other));
    const sut = serviceWith(settings);
    const user = db.addUser('owner@example.test');
    const agent = await agents.create({ user_id: user.id } as CreateAgentMessage);
    const put = (content: string, fields = {}) => sut.put(user.id, agent.agent_id, { content, ...fields });
    const contents = async (limit?: number) => (await sut.history(user.id, agent.agent_id, limit)).map((v) => v.content);
    return { sut, db, user, agentId: agent.agent_id, put, contents, serviceWith };
  }

  it('makes each write a new version and the current instructions', async () => {
    const { sut, user, agentId, put } = await setup();
    expect(await sut.get(user.id, agentId)).toBeNull();
    await put('first', { sourceType: 'builder', sourceId: 'run-1' });
    await put('second');
    const history = await sut.history(user.id, agentId);
    expect(history.map((v) => [v.content, v.source_type, v.source_id])).toEqual([
      ['second', 'api', ''],
      ['first', 'builder', 'run-1'],
    ]);
    expect(history[0].id).toBeGreaterThan(history[1].id);
    expect(await sut.get(user.id, agentId)).toMatchObject({
      agent_id: agentId,
      user_id: user.id,
      user_email: 'owner@example.test',
      content: 'second',
      content_hash: createHash('sha256').update('second').digest('hex'),
      storage_key: `agents/${agentId}/instructions/${history[0].id}`,
    });
  });

  it('adds no version for a write delivered again (unlessCurrent) while it is still the current one', async () => {
    const { put, contents } = await setup();
    const byRun = (content: string, run: string) => put(content, { sourceType: 'builder', sourceId: run, unlessCurrent: true });
    await byRun('a', 'run-1');
    await byRun('a', 'run-1');
    await byRun('a', 'run-2');
    await put('a', { sourceType: 'builder', sourceId: 'run-2' });
    expect(await contents()).toEqual(['a', 'a', 'a']);
  });

  it('keeps the newest QUOTA_INSTRUCTION_VERSIONS_KEPT versions, deleting older ones as it writes', async () => {
    const { db, put, contents } = await setup({ QUOTA_INSTRUCTION_VERSIONS_KEPT: 3 });
    for (const content of ['v1', 'v2', 'v3', 'v4', 'v5']) await put(content);
    expect(await contents()).toEqual(['v5', 'v4', 'v3']);
    expect(db.tables.instructionVersions.map((v) => v.content).sort()).toEqual(['v3', 'v4', 'v5']);
  });

  it('keeps every version when QUOTA_INSTRUCTION_VERSIONS_KEPT is 0', async () => {
    const { put, contents } = await setup({ QUOTA_INSTRUCTION_VERSIONS_KEPT: 0 });
    for (const content of ['v1', 'v2', 'v3', 'v4']) await put(content);
    expect(await contents()).toEqual(['v4', 'v3', 'v2', 'v1']);
    expect(await contents(2)).toEqual(['v4', 'v3']);
  });

  it('shows at most the versions kept, also of an agent whose older versions were written under a higher quota', async () => {
    const { db, user, agentId, put, serviceWith } = await setup({ QUOTA_INSTRUCTION_VERSIONS_KEPT: 0 });
    for (const content of ['v1', 'v2', 'v3', 'v4']) await put(content);
    const lowered = serviceWith({ QUOTA_INSTRUCTION_VERSIONS_KEPT: 2 });
    const shown = async (limit?: number) => (await lowered.history(user.id, agentId, limit)).map((v) => v.content);
    expect([await shown(), await shown(0), await shown(10), await shown(1)]).toEqual([['v4', 'v3'], ['v4', 'v3'], ['v4', 'v3'], ['v4']]);
    await lowered.put(user.id, agentId, { content: 'v5' });
    expect(db.tables.instructionVersions.map((v) => v.content)).toEqual(['v4', 'v5']);
  });

  it('refuses instructions past QUOTA_INSTRUCTIONS_BYTES, counting content as UTF-8 and plan steps as JSON, and writes nothing', async () => {
    const { db, put } = await setup({ QUOTA_INSTRUCTIONS_BYTES: 10 });
    await put('ééééé');
    await expect(put('éééééé')).rejects.toBeInstanceOf(QuotaExceededError);
    const steps = [{ id: 's' }] as unknown as RestPlanStep[];
    await expect(put('12345', { planSteps: steps })).rejects.toMatchObject({ quota: 'instructions_bytes', limit: 10 });
    expect(db.tables.instructionVersions).toHaveLength(1);
  });

  it("refuses a build run's write into another generation of the agent, and another user's agent, writing nothing", async () => {
    const { sut, db, agentId, put } = await setup();
    const generation = Number(db.tables.agents[0].seq);
    await expect(put('stale', { agentGeneration: generation - 1 })).rejects.toBeInstanceOf(ResourceNotFoundError);
    await put('current', { agentGeneration: generation });
    await expect(sut.put(db.addUser().id, agentId, { content: 'x' })).rejects.toBeInstanceOf(ResourceNotFoundError);
    await expect(sut.history(db.addUser().id, agentId)).rejects.toBeInstanceOf(ResourceNotFoundError);
    expect(db.tables.instructionVersions.map((v) => v.content)).toEqual(['current']);
  });
});
