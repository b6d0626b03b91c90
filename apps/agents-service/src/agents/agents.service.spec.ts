import { CreateAgentMessage, EventNames } from '@aas/contracts';
import { ConflictError, QuotaExceededError, ResourceNotFoundError, ValidationFailedError } from '@aas/problem-details';
import { randomUUID } from 'node:crypto';
import { AccessAnnouncer } from '../common/access-announcer';
import { FakeAccessAnnouncer } from '../common/access-announcer.fake';
import { AgentsEnv } from '../config/agents.env';
import { fakeAgentsConfig } from '../config/agents-config.fake';
import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { FakeUserQuotaStore } from '../quotas/user-quota.store.fake';
import { UserQuotas } from '../quotas/user-quotas';
import { FakeWorkspaceStore } from '../workspaces/workspace.store.fake';
import { FakeAgentStore } from './agent.store.fake';
import { AgentsService } from './agents.service';

describe(AgentsService.name, () => {
  function setup(settings: Partial<AgentsEnv> = {}) {
    const db = new InMemoryDatabase();
    const announcer = new FakeAccessAnnouncer();
    const workspaces = new FakeWorkspaceStore(db);
    const quotas = new UserQuotas(fakeAgentsConfig(settings), new FakeUserQuotaStore(db));
    const sut = new AgentsService(new FakeAgentStore(db), workspaces, db.transactions, quotas, announcer as unknown as AccessAnnouncer);
    const user = db.addUser();
    const create = (fields: Partial<CreateAgentMessage> = {}) => sut.create({ user_id: user.id, ...fields } as CreateAgentMessage);
    return { sut, db, announcer, user, create };
  }

  describe('create', () => {
    it("puts the first agent in the user's default workspace, made then, and ends the user's onboarding", async () => {
      const { db, user, create } = setup();
      const agent = await create();
      const [workspace] = db.tables.workspaces;
      expect(workspace).toMatchObject({ userId: user.id, isDefault: true, name: 'Default', position: 0 });
      expect(agent).toMatchObject({ workspace_id: workspace.id, deployment_state: 'not_deployed', has_runs: false, latest_run_id: '' });
      expect(db.tables.users[0].onboardedAt).toBeInstanceOf(Date);
      await create();
      expect(db.tables.workspaces).toHaveLength(1);
    });

    it('refuses an id that is taken with a 409 and undoes everything else of that creation', async () => {
      const { db, user, create } = setup();
      const id = randomUUID();
      await addAgentOf(db, db.addUser().id, id);
      await expect(create({ agent_id: id })).rejects.toBeInstanceOf(ConflictError);
      // Read again: a rollback puts back the tables as they were.
      expect(db.tables.users.find((u) => u.id === user.id)!.onboardedAt).toBeNull();
      expect(db.tables.workspaces.filter((w) => w.userId === user.id)).toEqual([]);
    });

    it('checks owner, workspace and derived agent against the caller', async () => {
      const { db, create } = setup();
      const stranger = db.addUser();
      const theirs = await addAgentOf(db, stranger.id, randomUUID());
      const foreignWorkspace = db.tables.workspaces.find((w) => w.userId === stranger.id)!.id;
      const refusals = [
        { owner_user_id: stranger.id },
        { workspace_id: foreignWorkspace },
        { workspace_id: 'not-a-uuid' },
        { derived_from_agent_id: theirs },
        { derived_from_agent_id: 'not-a-uuid' },
      ];
      for (const fields of refusals) await expect(create(fields)).rejects.toBeInstanceOf(ValidationFailedError);
      expect(db.tables.agents.map((a) => a.id)).toEqual([theirs]);
    });

    it('takes a workspace and a derived agent of the caller', async () => {
      const { sut, user, create } = setup();
      const first = await create();
      const derived = await create({ workspace_id: first.workspace_id!, derived_from_agent_id: first.agent_id, owner_user_id: user.id });
      expect(derived.workspace_id).toBe(first.workspace_id);
      expect(await sut.get(user.id, derived.agent_id)).toEqual(derived);
    });

    it('refuses an agent past QUOTA_AGENTS_PER_USER with a 422; 0 is no limit', async () => {
      const { db, create } = setup({ QUOTA_AGENTS_PER_USER: 2 });
      await create();
      await create();
      await expect(create()).rejects.toMatchObject({ quota: 'agents_per_user', limit: 2 });
      await expect(create()).rejects.toBeInstanceOf(QuotaExceededError);
      expect(db.tables.agents).toHaveLength(2);
      const unlimited = setup({ QUOTA_AGENTS_PER_USER: 0 });
      for (let i = 0; i < 3; i++) await unlimited.create();
      expect(unlimited.db.tables.agents).toHaveLength(3);
    });
  });

  it("answers 404 for another user's agent and for an id that is not a UUID", async () => {
    const { sut, db, create } = setup();
    const agent = await create();
    await expect(sut.get(db.addUser().id, agent.agent_id)).rejects.toBeInstanceOf(ResourceNotFoundError);
    await expect(sut.get(db.tables.users[0].id, 'nope')).rejects.toBeInstanceOf(ResourceNotFoundError);
  });

  describe('delete', () => {
    it('deletes the agent with its instructions, records agent.deleted with its generation, then tells the gateways', async () => {
      const { sut, db, user, announcer, create } = setup();
      const agent = await create();
      const generation = Number(db.tables.agents[0].seq);
      db.tables.instructions.push({ agentId: agent.agent_id } as (typeof db.tables.instructions)[number]);
      await sut.delete(user.id, agent.agent_id);
      expect(db.tables.agents).toEqual([]);
      expect(db.tables.instructions).toEqual([]);
      expect(db.tables.outbox).toEqual([
        { event: EventNames.AgentDeleted, payload: { agent_id: agent.agent_id, user_id: user.id, deleted_at: expect.any(String), generation } },
      ]);
      expect(announcer.deletedAgents).toEqual([`${user.id}:${agent.agent_id}`]);
    });

    it('a recreated agent with the same id is a later generation', async () => {
      const { sut, db, user, create } = setup();
      const id = randomUUID();
      await create({ agent_id: id });
      await sut.delete(user.id, id);
      await create({ agent_id: id });
      await sut.delete(user.id, id);
      const [first, second] = db.tables.outbox.map((e) => (e.payload as { generation: number }).generation);
      expect(second).toBeGreaterThan(first);
    });

    it("answers 404 for another user's agent, and deletes and records nothing", async () => {
      const { sut, db, announcer, create } = setup();
      const agent = await create();
      await expect(sut.delete(db.addUser().id, agent.agent_id)).rejects.toBeInstanceOf(ResourceNotFoundError);
      expect(db.tables.agents).toHaveLength(1);
      expect(db.tables.outbox).toEqual([]);
      expect(announcer.deletedAgents).toEqual([]);
    });
  });

  describe('update', () => {
    it("renames the caller's agent, and answers 404 to anyone else", async () => {
      const { sut, db, user, create } = setup();
      const agent = await create();
      const renamed = await sut.update({ user_id: user.id, agent_id: agent.agent_id, agent_name: { name: 'Digest', explanation: 'Reads pages' } });
      expect(renamed.agent_name).toEqual({ name: 'Digest', explanation: 'Reads pages' });
      expect((await sut.get(user.id, agent.agent_id)).agent_name).toEqual({ name: 'Digest', explanation: 'Reads pages' });
      const stranger = db.addUser();
      await expect(sut.update({ user_id: stranger.id, agent_id: agent.agent_id, agent_name: { name: 'Mine now' } })).rejects.toBeInstanceOf(
        ResourceNotFoundError,
      );
      expect((await sut.get(user.id, agent.agent_id)).agent_name).toEqual({ name: 'Digest', explanation: 'Reads pages' });
    });
  });

  describe('move', () => {
    it("moves the agent into one of the caller's workspaces, and answers success false for any other", async () => {
      const { sut, db, user, create } = setup();
      const agent = await create();
      const target = (await db.transaction((tx) => new FakeWorkspaceStore(db).insert(tx, newWorkspace(user.id, 1)))).id;
      const stranger = db.addUser();
      await addAgentOf(db, stranger.id, randomUUID());
      const foreign = db.tables.workspaces.find((w) => w.userId === stranger.id)!.id;
      expect(await sut.move(user.id, agent.agent_id, foreign)).toEqual({ success: false, error: `Workspace ${foreign} not found` });
      expect(await sut.move(user.id, agent.agent_id, 'nope')).toMatchObject({ success: false });
      expect(await sut.move(user.id, agent.agent_id, target)).toEqual({ success: true, error: null });
      expect((await sut.get(user.id, agent.agent_id)).workspace_id).toBe(target);
      await expect(sut.move(stranger.id, agent.agent_id, target)).rejects.toBeInstanceOf(ResourceNotFoundError);
    });
  });

  describe('list', () => {
    it('pages oldest first by cursor, and filters by workspace', async () => {
      const { sut, user, create } = setup();
      const made = [];
      for (let i = 0; i < 5; i++) made.push((await create()).agent_id);
      const first = await sut.list({ user_id: user.id, limit: 2 });
      expect(first.agents.map((a) => a.agent_id)).toEqual(made.slice(0, 2));
      const second = await sut.list({ user_id: user.id, limit: 2, cursor: first.next_cursor! });
      const third = await sut.list({ user_id: user.id, limit: 2, cursor: second.next_cursor! });
      expect([...second.agents, ...third.agents].map((a) => a.agent_id)).toEqual(made.slice(2));
      expect(third.next_cursor).toBeNull();
      expect(await sut.list({ user_id: user.id, workspace_id: randomUUID() })).toEqual({ agents: [], next_cursor: null });
      expect(await sut.list({ user_id: user.id, workspace_id: 'not-a-uuid' })).toEqual({ agents: [], next_cursor: null });
    });

    it('refuses a cursor it did not make', async () => {
      const { sut, user } = setup();
      await expect(sut.list({ user_id: user.id, cursor: 'forged' })).rejects.toBeInstanceOf(ValidationFailedError);
    });
  });
});

/** An agent of `userId` in a default workspace of its own, written directly. */
async function addAgentOf(db: InMemoryDatabase, userId: string, agentId: string): Promise<string> {
  return db.transaction(async (tx) => {
    const workspaces = new FakeWorkspaceStore(db);
    const workspace = await workspaces.insert(tx, { ...newWorkspace(userId, 0), isDefault: true });
    await new FakeAgentStore(db).insertAndOnboard(tx, {
      id: agentId,
      userId,
      workspaceId: workspace.id,
      ownerUserId: null,
      isSubagent: false,
      derivedFromAgentId: null,
    });
    return agentId;
  });
}

function newWorkspace(userId: string, position: number) {
  const now = new Date();
  return { userId, name: `w${position}`, iconConfig: null, position, isDefault: false, createdAt: now, updatedAt: now };
}
