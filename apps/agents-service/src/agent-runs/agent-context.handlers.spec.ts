import { ResourceNotFoundError } from '@aas/problem-details';
import { randomUUID } from 'node:crypto';
import { FakeAgentStore } from '../agents/agent.store.fake';
import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { InstructionsEntity } from '../database/instructions.entity';
import { AgentContextHandlers } from './agent-context.handlers';
import { FakeAgentRunsStore } from './agent-runs.store.fake';

describe(AgentContextHandlers.name, () => {
  async function setup() {
    const db = new InMemoryDatabase();
    const user = db.addUser('owner@example.test');
    const addAgent = (userId: string) =>
      db.transaction(async (tx) => {
        const workspaceId = randomUUID();
        db.tables.workspaces.push({ id: workspaceId, userId } as (typeof db.tables.workspaces)[number]);
        return (await new FakeAgentStore(db).insertAndOnboard(tx, {
          id: randomUUID(),
          userId,
          workspaceId,
          ownerUserId: null,
          isSubagent: false,
          derivedFromAgentId: null,
        }))!;
      });
    return { sut: new AgentContextHandlers(new FakeAgentRunsStore(db)), db, user, addAgent };
  }

  it("answers whether an agent is the caller's: its generation and deployment, nothing more; otherwise a 404", async () => {
    const { sut, db, user, addAgent } = await setup();
    const agent = await addAgent(user.id);
    db.tables.instructions.push({ agentId: agent.id, content: 'secret plan', planSteps: null } as InstructionsEntity);
    expect(await sut.owned({ agent_id: agent.id, user_id: user.id })).toEqual({
      agent_id: agent.id,
      generation: Number(agent.seq),
      deployment_state: 'not_deployed',
    });
    const stranger = db.addUser().id;
    await expect(sut.owned({ agent_id: agent.id, user_id: stranger })).rejects.toBeInstanceOf(ResourceNotFoundError);
    await expect(sut.owned({ agent_id: 'not-a-uuid', user_id: user.id })).rejects.toBeInstanceOf(ResourceNotFoundError);
    await expect(sut.owned({ agent_id: randomUUID(), user_id: user.id })).rejects.toBeInstanceOf(ResourceNotFoundError);
  });

  it('answers the agent with its generation, owner and instructions (plan steps always an array)', async () => {
    const { sut, db, user, addAgent } = await setup();
    const agent = await addAgent(user.id);
    const message = { agent_id: agent.id, user_id: user.id };
    expect(await sut.context(message)).toEqual({
      agent_id: agent.id,
      generation: Number(agent.seq),
      user_email: 'owner@example.test',
      deployment_state: 'not_deployed',
      instructions: null,
    });
    db.tables.instructions.push({ agentId: agent.id, content: 'do it', planSteps: null, versionId: '42' } as InstructionsEntity);
    expect((await sut.context(message)).instructions).toEqual({ content: 'do it', plan_steps: [], version_id: 42 });
  });

  it("answers 404 for another user's agent and for an id that is not a UUID", async () => {
    const { sut, db, user, addAgent } = await setup();
    const theirs = await addAgent(db.addUser().id);
    await expect(sut.context({ agent_id: theirs.id, user_id: user.id })).rejects.toBeInstanceOf(ResourceNotFoundError);
    await expect(sut.context({ agent_id: 'nope', user_id: user.id })).rejects.toBeInstanceOf(ResourceNotFoundError);
  });

  it('answers the start contexts of the pairs that exist, leaving out the others', async () => {
    const { sut, db, user, addAgent } = await setup();
    const mine = await addAgent(user.id);
    const theirs = await addAgent(db.addUser().id);
    const answer = await sut.startContexts({
      agents: [
        { agent_id: mine.id, user_id: user.id },
        { agent_id: theirs.id, user_id: user.id },
        { agent_id: randomUUID(), user_id: user.id },
      ],
    });
    expect(answer.agents).toEqual([
      { agent_id: mine.id, generation: Number(mine.seq), user_id: user.id, user_email: 'owner@example.test', deployment_state: 'not_deployed' },
    ]);
    expect(await sut.startContexts({ agents: [] })).toEqual({ agents: [] });
  });
});
