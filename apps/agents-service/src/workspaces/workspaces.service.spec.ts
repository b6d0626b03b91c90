import { CreateAgentMessage, EventNames } from '@aas/contracts';
import { QuotaExceededError, ResourceNotFoundError, ValidationFailedError } from '@aas/problem-details';
import { FakeAgentStore } from '../agents/agent.store.fake';
import { AgentsService } from '../agents/agents.service';
import { AccessAnnouncer } from '../common/access-announcer';
import { FakeAccessAnnouncer } from '../common/access-announcer.fake';
import { AgentsEnv } from '../config/agents.env';
import { fakeAgentsConfig } from '../config/agents-config.fake';
import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { FakeUserQuotaStore } from '../quotas/user-quota.store.fake';
import { UserQuotas } from '../quotas/user-quotas';
import { FakeWorkspaceStore } from './workspace.store.fake';
import { WorkspacesService } from './workspaces.service';

describe(WorkspacesService.name, () => {
  function setup(settings: Partial<AgentsEnv> = {}) {
    const db = new InMemoryDatabase();
    const announcer = new FakeAccessAnnouncer();
    const quotas = new UserQuotas(fakeAgentsConfig(settings), new FakeUserQuotaStore(db));
    const [agentStore, workspaceStore] = [new FakeAgentStore(db), new FakeWorkspaceStore(db)];
    const fakeAnnouncer = announcer as unknown as AccessAnnouncer;
    const sut = new WorkspacesService(workspaceStore, agentStore, db.transactions, quotas, fakeAnnouncer);
    const agents = new AgentsService(agentStore, workspaceStore, db.transactions, quotas, fakeAnnouncer);
    const user = db.addUser();
    const agentIn = async (workspaceId?: string) =>
      (await agents.create({ user_id: user.id, workspace_id: workspaceId } as CreateAgentMessage)).agent_id;
    const names = async () => (await sut.list(user.id)).map((w) => w.name);
    return { sut, db, user, announcer, agentIn, names };
  }

  it('makes the default workspace on first need, once, and counts agents per workspace', async () => {
    const { sut, db, user, agentIn } = setup();
    const [first] = await sut.list(user.id);
    expect(first).toMatchObject({ name: 'Default', position: 0, agent_count: 0 });
    const other = await sut.create(user.id, 'Other');
    await agentIn();
    await agentIn(other.workspace_id);
    await agentIn(other.workspace_id);
    expect((await sut.list(user.id)).map((w) => [w.name, w.agent_count])).toEqual([
      ['Default', 1],
      ['Other', 2],
    ]);
    expect(db.tables.workspaces.filter((w) => w.isDefault)).toHaveLength(1);
  });

  it('adds each new workspace after the last, and counts the default one in QUOTA_WORKSPACES_PER_USER', async () => {
    const { sut, db, user, names } = setup({ QUOTA_WORKSPACES_PER_USER: 3 });
    expect((await sut.create(user.id, 'A')).position).toBe(1);
    expect((await sut.create(user.id, 'B')).position).toBe(2);
    const refused = sut.create(user.id, 'C');
    await expect(refused).rejects.toBeInstanceOf(QuotaExceededError);
    await expect(refused).rejects.toMatchObject({ quota: 'workspaces_per_user', limit: 3 });
    expect(await names()).toEqual(['Default', 'A', 'B']);
    expect(db.tables.workspaces).toHaveLength(3);
  });

  it("renames, keeps the icon unless one is given, and answers 404 for a workspace that is not the caller's", async () => {
    const { sut, db, user } = setup();
    const created = await sut.create(user.id, 'A');
    const withIcon = await sut.update({ user_id: user.id, workspace_id: created.workspace_id, name: 'B', icon_config: '{"emoji":"x"}' });
    const renamed = await sut.update({ user_id: user.id, workspace_id: created.workspace_id, name: 'C' });
    expect([withIcon.name, renamed.name, renamed.icon_config]).toEqual(['B', 'C', '{"emoji":"x"}']);
    await expect(sut.update({ user_id: db.addUser().id, workspace_id: created.workspace_id, name: 'D' })).rejects.toBeInstanceOf(
      ResourceNotFoundError,
    );
  });

  describe('reorder', () => {
    it('puts the given workspaces first, in their order, and the others after in their previous order', async () => {
      const { sut, user, names } = setup();
      await sut.list(user.id);
      const ids = new Map<string, string>();
      for (const name of ['A', 'B', 'C']) ids.set(name, (await sut.create(user.id, name)).workspace_id);
      expect(await sut.reorder(user.id, [ids.get('C')!, ids.get('A')!])).toEqual({ success: true });
      expect(await names()).toEqual(['C', 'A', 'Default', 'B']);
      expect((await sut.list(user.id)).map((w) => w.position)).toEqual([0, 1, 2, 3]);
    });

    it("refuses a repeated id or one that is not the caller's, and changes nothing", async () => {
      const { sut, db, user, names } = setup();
      const a = (await sut.create(user.id, 'A')).workspace_id;
      const theirs = (await sut.create(db.addUser().id, 'Theirs')).workspace_id;
      await expect(sut.reorder(user.id, [a, a])).rejects.toBeInstanceOf(ValidationFailedError);
      await expect(sut.reorder(user.id, [a, theirs])).rejects.toThrow(`not your workspaces: ${theirs}`);
      expect(await names()).toEqual(['Default', 'A']);
    });
  });

  describe('delete', () => {
    it("deletes the workspace with its agents, recording agent.deleted for each, and leaves other workspaces' agents", async () => {
      const { sut, db, user, announcer, agentIn, names } = setup();
      const doomed = await sut.create(user.id, 'Doomed');
      const kept = await agentIn();
      const gone = [await agentIn(doomed.workspace_id), await agentIn(doomed.workspace_id)];
      expect(await sut.delete(user.id, doomed.workspace_id)).toEqual({ deleted: true, error: null });
      expect(await names()).toEqual(['Default']);
      expect(db.tables.agents.map((a) => a.id)).toEqual([kept]);
      expect(db.tables.outbox.map((e) => [e.event, (e.payload as { agent_id: string }).agent_id])).toEqual(
        gone.map((id) => [EventNames.AgentDeleted, id]),
      );
      expect(announcer.deletedAgents).toEqual(gone.map((id) => `${user.id}:${id}`));
    });

    it('deletes an empty workspace without recording anything', async () => {
      const { sut, db, user } = setup();
      const empty = await sut.create(user.id, 'Empty');
      expect(await sut.delete(user.id, empty.workspace_id)).toEqual({ deleted: true, error: null });
      expect(db.tables.outbox).toEqual([]);
    });

    it('never deletes the default workspace, nor its agents', async () => {
      const { sut, db, user, agentIn } = setup();
      await agentIn();
      const [defaultWorkspace] = await sut.list(user.id);
      expect(await sut.delete(user.id, defaultWorkspace.workspace_id)).toEqual({
        deleted: false,
        error: 'The default workspace cannot be deleted',
      });
      expect([db.tables.workspaces.length, db.tables.agents.length, db.tables.outbox.length]).toEqual([1, 1, 0]);
    });

    it("answers 404 for another user's workspace and for an id that is not a UUID", async () => {
      const { sut, db, user } = setup();
      const theirs = await sut.create(db.addUser().id, 'Theirs');
      await expect(sut.delete(user.id, theirs.workspace_id)).rejects.toBeInstanceOf(ResourceNotFoundError);
      await expect(sut.delete(user.id, 'nope')).rejects.toBeInstanceOf(ResourceNotFoundError);
      expect(db.tables.workspaces.some((w) => w.id === theirs.workspace_id)).toBe(true);
    });
  });
});
