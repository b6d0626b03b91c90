import { CreateAgentMessage, RunAgentNameEvent, RunProgressEvent, hashApiKey, hashToken } from '@aas/contracts';
import { dataSourceOptions, migrateSchema, OutboxRelay, PostgresTransactions, Transactions } from '@aas/platform';
import { Job } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { isolatedInfra } from '../../../test/support/isolated-infra';
import { AgentContextHandlers } from './agent-runs/agent-context.handlers';
import { AgentRunsStore } from './agent-runs/agent-runs.store';
import { PostgresAgentRunsStore } from './agent-runs/postgres-agent-runs.store';
import { FakeAgentRunsStore } from './agent-runs/agent-runs.store.fake';
import { RunProgressConsumer } from './agent-runs/run-progress.consumer';
import { RunEffects } from './agent-runs/run-effects';
import { AgentStore } from './agents/agent.store';
import { PostgresAgentStore } from './agents/postgres-agent.store';
import { FakeAgentStore } from './agents/agent.store.fake';
import { AgentsService } from './agents/agents.service';
import { ApiKeyStore } from './api-keys/api-key.store';
import { PostgresApiKeyStore } from './api-keys/postgres-api-key.store';
import { FakeApiKeyStore } from './api-keys/api-key.store.fake';
import { ApiKeysService } from './api-keys/api-keys.service';
import { KeyRevocationRegistry } from './api-keys/key-revocation.registry';
import { FakeKeyRevocationRegistry } from './api-keys/key-revocation.registry.fake';
import { AccessAnnouncer } from './common/access-announcer';
import { FakeAccessAnnouncer } from './common/access-announcer.fake';
import { fakeAgentsConfig } from './config/agents-config.fake';
import { ConsoleSessionStore } from './console-sessions/console-session.store';
import { PostgresConsoleSessionStore } from './console-sessions/postgres-console-session.store';
import { FakeConsoleSessionStore } from './console-sessions/console-session.store.fake';
import { ConsoleSessionsService, SESSIONS_PER_USER } from './console-sessions/console-sessions.service';
import { InstructionStore } from './instructions/instruction.store';
import { PostgresInstructionStore } from './instructions/postgres-instruction.store';
import { FakeInstructionStore } from './instructions/instruction.store.fake';
import { InstructionsService } from './instructions/instructions.service';
import { UserQuotaStore } from './quotas/user-quota.store';
import { PostgresUserQuotaStore } from './quotas/postgres-user-quota.store';
import { FakeUserQuotaStore } from './quotas/user-quota.store.fake';
import { UserQuotas } from './quotas/user-quotas';
import { UserStore } from './users/user.store';
import { PostgresUserStore } from './users/postgres-user.store';
import { FakeUserStore } from './users/user.store.fake';
import { UsersService } from './users/users.service';
import { WorkspaceStore } from './workspaces/workspace.store';
import { PostgresWorkspaceStore } from './workspaces/postgres-workspace.store';
import { FakeWorkspaceStore } from './workspaces/workspace.store.fake';
import { WorkspacesService } from './workspaces/workspaces.service';
import { AGENTS_SCHEMA } from './database/agents-schema';
import { InMemoryDatabase } from './database/in-memory-database.fake';

/** Run ids as the producer writes them (UUIDs), named for reading; the same on both stores. */
const runIds = new Map<string, string>();
const runIdOf = (name: string): string => runIds.get(name) ?? runIds.set(name, randomUUID()).get(name)!;

interface Stores {
  transactions: Transactions;
  users: UserStore;
  apiKeys: ApiKeyStore;
  quotas: UserQuotaStore;
  workspaces: WorkspaceStore;
  agents: AgentStore;
  instructions: InstructionStore;
  sessions: ConsoleSessionStore;
  agentRuns: AgentRunsStore;
}

const SETTINGS = { QUOTA_API_KEYS_PER_USER: 2, QUOTA_WORKSPACES_PER_USER: 3, QUOTA_INSTRUCTION_VERSIONS_KEPT: 3 };

/** The services of agents-service on one set of stores. */
function servicesOn(stores: Stores) {
  const config = fakeAgentsConfig(SETTINGS);
  const announcer = new FakeAccessAnnouncer() as unknown as AccessAnnouncer;
  const registry = new FakeKeyRevocationRegistry();
  const quotas = new UserQuotas(config, stores.quotas);
  const agents = new AgentsService(stores.agents, stores.workspaces, stores.transactions, quotas, announcer);
  const instructions = new InstructionsService(stores.instructions, stores.users, stores.transactions, agents, config);
  const keys = new ApiKeysService(stores.apiKeys, stores.transactions, registry as unknown as KeyRevocationRegistry, quotas);
  return {
    registry,
    agents,
    users: new UsersService(stores.users),
    keys,
    workspaces: new WorkspacesService(stores.workspaces, stores.agents, stores.transactions, quotas, announcer),
    instructions,
    /** Shows every version stored (a history limited by no quota). */
    allVersions: new InstructionsService(
      stores.instructions,
      stores.users,
      stores.transactions,
      agents,
      fakeAgentsConfig({ ...SETTINGS, QUOTA_INSTRUCTION_VERSIONS_KEPT: 0 }),
    ),
    sessions: new ConsoleSessionsService(stores.sessions, stores.transactions, config, announcer, keys),
    progress: new RunProgressConsumer(new RunEffects(stores.agentRuns, instructions)),
    context: new AgentContextHandlers(stores.agentRuns),
  };
}

type Services = ReturnType<typeof servicesOn>;

/** The error a call failed with, by its class, or 'ok'. */
async function outcome(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => 'ok',
    (error: Error) => error.constructor.name,
  );
}

const infra = isolatedInfra();
const options = { ...AGENTS_SCHEMA, url: infra.databaseUrl, poolSize: 4 };

/**
 * The in-memory fakes the unit tests use answer as the PostgreSQL stores do: each scenario runs the
 * real services once on the stores and once on the fakes, and must see the same.
 */
describe('the fakes of the agents-service stores', () => {
  let dataSource: DataSource;
  let postgres: Services;

  beforeAll(async () => {
    await migrateSchema(options);
    dataSource = new DataSource(dataSourceOptions(options));
    await dataSource.initialize();
    postgres = servicesOn({
      transactions: new PostgresTransactions(dataSource),
      users: new PostgresUserStore(dataSource),
      apiKeys: new PostgresApiKeyStore(dataSource),
      quotas: new PostgresUserQuotaStore(dataSource),
      workspaces: new PostgresWorkspaceStore(dataSource),
      agents: new PostgresAgentStore(dataSource, { kickAfterCommit: () => undefined } as unknown as OutboxRelay),
      instructions: new PostgresInstructionStore(dataSource),
      sessions: new PostgresConsoleSessionStore(dataSource),
      agentRuns: new PostgresAgentRunsStore(dataSource),
    });
  });
  afterAll(async () => {
    await dataSource.destroy();
    await infra.dispose();
  });

  function fake(): Services {
    const db = new InMemoryDatabase();
    return servicesOn({
      transactions: db.transactions,
      users: new FakeUserStore(db),
      apiKeys: new FakeApiKeyStore(db),
      quotas: new FakeUserQuotaStore(db),
      workspaces: new FakeWorkspaceStore(db),
      agents: new FakeAgentStore(db),
      instructions: new FakeInstructionStore(db),
      sessions: new FakeConsoleSessionStore(db),
      agentRuns: new FakeAgentRunsStore(db),
    });
  }

  /** Runs the scenario on both, with the same emails (from `run`) and agent ids, and expects the same answers. */
  async function same<T>(scenario: (s: Services, run: string, ids: string[]) => Promise<T>): Promise<void> {
    const run = randomUUID();
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const onPostgres = await scenario(postgres, run, ids);
    expect(await scenario(fake(), run, ids)).toEqual(onPostgres);
  }

  it('API keys: the quota, revocation, verification, last use and the bootstrap key', () =>
    same(async (s, run) => {
      const user = await s.users.createUser(`keys-${run}@example.test`);
      const [first, second] = [await s.keys.create(user.id, 'first'), await s.keys.create(user.id, 'second')];
      const overQuota = await outcome(s.keys.create(user.id, 'third'));
      await s.keys.revoke(user.id, first.key_id);
      const again = await outcome(s.keys.revoke(user.id, first.key_id));
      const verified = [await s.keys.verify(hashApiKey(first.api_key)), (await s.keys.verify(hashApiKey(second.api_key)))?.user_id === user.id];
      s.registry.lastUsed.set(second.key_id, 5_000);
      await s.keys.flushUsage();
      s.registry.lastUsed.set(second.key_id, 3_000);
      await s.keys.flushUsage();
      const listed = (await s.keys.list(user.id)).map((k) => [k.name, k.last_used_at]);
      const token = `bootstrap-${run}`;
      const bootstrap = await s.keys.ensureKey(user.id, token, 'bootstrap');
      await s.keys.revokeAnyUsersKey(bootstrap);
      const revived = (await s.keys.ensureKey(user.id, token, 'bootstrap')) === bootstrap && (await s.keys.verify(hashApiKey(token))) !== null;
      return { overQuota, again, verified, listed, revived };
    }));

  it('agents and workspaces: creation, the default workspace, moves, order, paging and deletion', () =>
    same(async (s, run, ids) => {
      const user = await s.users.createUser(`catalogue-${run}@example.test`);
      const before = (await s.users.me(user.id)).needs_onboarding;
      const a = await s.workspaces.create(user.id, 'A');
      const b = await s.workspaces.create(user.id, 'B');
      const overQuota = await outcome(s.workspaces.create(user.id, 'C'));
      const create = (fields: Partial<CreateAgentMessage> = {}) => s.agents.create({ user_id: user.id, ...fields } as CreateAgentMessage);
      const first = await create({ agent_id: ids[0] });
      await create({ agent_id: ids[1], workspace_id: a.workspace_id });
      await create({ agent_id: ids[2], workspace_id: a.workspace_id, derived_from_agent_id: first.agent_id });
      const taken = await outcome(create({ agent_id: ids[0] }));
      const moved = await s.agents.move(user.id, ids[2], b.workspace_id);
      await s.workspaces.reorder(user.id, [b.workspace_id]);
      const pages = [];
      let cursor: string | undefined;
      do {
        const page = await s.agents.list({ user_id: user.id, limit: 2, cursor });
        pages.push(page.agents.map((agent) => agent.agent_id));
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      const listed = async () => (await s.workspaces.list(user.id)).map((w) => [w.name, w.position, w.agent_count]);
      const ordered = await listed();
      const deleted = await s.workspaces.delete(user.id, a.workspace_id);
      const defaultDeleted = await s.workspaces.delete(user.id, (await s.workspaces.list(user.id))[1].workspace_id);
      await s.agents.delete(user.id, ids[2]);
      const remaining = (await s.agents.list({ user_id: user.id })).agents.map((agent) => agent.agent_id);
      const after = (await s.users.me(user.id)).needs_onboarding;
      return { before, after, overQuota, taken, moved, pages, ordered, deleted, defaultDeleted, remaining, end: await listed() };
    }));

  it('agents read at once (one batched read on PostgreSQL): own, another user\'s, missing, the same twice', () =>
    same(async (s, run, ids) => {
      const owner = await s.users.createUser(`reads-${run}@example.test`);
      const other = await s.users.createUser(`reads-other-${run}@example.test`);
      for (const id of ids.slice(0, 2)) await s.agents.create({ user_id: owner.id, agent_id: id } as CreateAgentMessage);
      const reads: [string, string][] = [[owner.id, ids[0]], [owner.id, ids[1]], [other.id, ids[0]], [owner.id, ids[2]], [owner.id, ids[0]]];
      return Promise.all(reads.map(([user, id]) => s.agents.get(user, id).then((agent) => agent.agent_id === id, (error: Error) => error.constructor.name)));
    }));

  it("live agents: all of a user's, one workspace's, one agent, never another user's or a deleted one", () =>
    same(async (s, run, ids) => {
      const owner = await s.users.createUser(`live-${run}@example.test`);
      const other = await s.users.createUser(`live-other-${run}@example.test`);
      const workspace = await s.workspaces.create(owner.id, 'W');
      await s.agents.create({ user_id: owner.id, agent_id: ids[0] } as CreateAgentMessage);
      await s.agents.create({ user_id: owner.id, agent_id: ids[1], workspace_id: workspace.workspace_id } as CreateAgentMessage);
      await s.agents.create({ user_id: owner.id, agent_id: ids[2] } as CreateAgentMessage);
      await s.agents.delete(owner.id, ids[2]);
      const live = async (user: string, only: { workspace_id?: string; agent_id?: string } = {}) =>
        (await s.context.liveAgents({ user_id: user, ...only })).agents.map((a) => [ids.indexOf(a.agent_id), typeof a.generation]);
      return {
        all: await live(owner.id),
        inWorkspace: await live(owner.id, { workspace_id: workspace.workspace_id }),
        one: await live(owner.id, { agent_id: ids[0] }),
        deleted: await live(owner.id, { agent_id: ids[2] }),
        stranger: await live(other.id),
        strangerAsksForOne: await live(other.id, { agent_id: ids[0] }),
      };
    }));

  it('run retentions: the agents of workspaces with their own retention, by days; none of the others', () =>
    same(async (s, run, ids) => {
      const owner = await s.users.createUser(`retention-${run}@example.test`);
      const [week, forever] = [await s.workspaces.create(owner.id, 'Week'), await s.workspaces.create(owner.id, 'Forever')];
      await s.agents.create({ user_id: owner.id, agent_id: ids[0], workspace_id: week.workspace_id } as CreateAgentMessage);
      await s.agents.create({ user_id: owner.id, agent_id: ids[1], workspace_id: forever.workspace_id } as CreateAgentMessage);
      await s.agents.create({ user_id: owner.id, agent_id: ids[2] } as CreateAgentMessage);
      const set = (workspace: { workspace_id: string; name: string }, days: number | null) =>
        s.workspaces.update({ user_id: owner.id, workspace_id: workspace.workspace_id, name: workspace.name, run_retention_days: days });
      const answered = await set(week, 7);
      await set(forever, 0);
      const retentions = async () =>
        (await s.context.runRetentions({})).retentions
          .map((r) => ({ days: r.days, agents: r.agent_ids.map((id) => ids.indexOf(id)).filter((i) => i >= 0) }))
          .filter((r) => r.agents.length > 0);
      const both = await retentions();
      await set(week, null);
      return { answered: answered.run_retention_days, both, afterReset: await retentions() };
    }));

  it('instructions: versions, the versions kept, the generation check', () =>
    same(async (s, run) => {
      const user = await s.users.createUser(`instructions-${run}@example.test`);
      const agent = await s.agents.create({ user_id: user.id } as CreateAgentMessage);
      const { generation } = await s.context.context({ agent_id: agent.agent_id, user_id: user.id });
      for (const content of ['v1', 'v2', 'v3', 'v4']) await s.instructions.put(user.id, agent.agent_id, { content });
      const stale = await outcome(s.instructions.put(user.id, agent.agent_id, { content: 'stale', agentGeneration: generation + 1 }));
      await s.instructions.put(user.id, agent.agent_id, { content: 'v5', planSteps: [], sourceType: 'builder', agentGeneration: generation });
      const history = (await s.instructions.history(user.id, agent.agent_id)).map((v) => [v.content, v.source_type]);
      const stored = (await s.allVersions.history(user.id, agent.agent_id)).map((v) => v.content);
      const summary = (await s.instructions.get(user.id, agent.agent_id))!;
      const { updated_at: _at, storage_key: _key, agent_id: _agent, user_id: _user, ...current } = summary;
      const context = await s.context.context({ agent_id: agent.agent_id, user_id: user.id });
      const limited = (await s.instructions.history(user.id, agent.agent_id, 2)).length;
      return { stale, history, stored, limited, current, instructions: context.instructions };
    }));

  it("instructions: one kept version for a replay, none once pruned, none of another agent, another user's agent a 404", () =>
    same(async (s, run) => {
      const user = await s.users.createUser(`instructions-version-${run}@example.test`);
      const other = await s.users.createUser(`instructions-version-other-${run}@example.test`);
      const agent = await s.agents.create({ user_id: user.id } as CreateAgentMessage);
      const second = await s.agents.create({ user_id: user.id } as CreateAgentMessage);
      const ids: number[] = [];
      for (const content of ['v1', 'v2', 'v3', 'v4']) {
        await s.instructions.put(user.id, agent.agent_id, { content, planSteps: content === 'v2' ? [{ title: 't', description: 'd', tools: [], order: 0 }] : undefined });
        ids.push((await s.instructions.history(user.id, agent.agent_id, 1))[0].id);
      }
      const version = (id: number, agentId = agent.agent_id, userId = user.id) => s.instructions.keptVersion(userId, agentId, id);
      const relative = (v: Awaited<ReturnType<typeof version>>) => v && { ...v, version_id: ids.indexOf(v.version_id) };
      const seen = {
        pruned: await version(ids[0]),
        kept: relative(await version(ids[1])),
        newest: relative(await version(ids[3])),
        ofAnotherAgent: await version(ids[3], second.agent_id),
        anotherUser: await outcome(version(ids[3], agent.agent_id, other.id)),
      };
      expect(seen).toMatchObject({ pruned: null, kept: { content: 'v2', version_id: 1 }, newest: { content: 'v4', plan_steps: [] }, ofAnotherAgent: null });
      return seen;
    }));

  it('run progress: summaries applied in order only, build runs, deployment, other generations', () =>
    same(async (s, run, [agentId]) => {
      const user = await s.users.createUser(`progress-${run}@example.test`);
      const agent = await s.agents.create({ user_id: user.id, agent_id: agentId } as CreateAgentMessage);
      const { generation } = await s.context.context({ agent_id: agent.agent_id, user_id: user.id });
      const progress = (fields: Partial<RunProgressEvent>) =>
        s.progress.process({
          name: 'run.progress',
          data: {
            run_id: runIdOf('run-1'), agent_id: agent.agent_id, user_id: user.id, run_number: 1, run_mode: 'run', seq: 0, status: 'in_progress',
            is_finished: false, has_pending_input: false, policy_type: null, wrote_instructions: false, at: '2026-01-01T00:00:00.000Z',
            agent_generation: generation, ...fields,
          },
        } as Job<RunProgressEvent>);
      await progress({ last_chat_message: 'hello', policy_type: 'ask' });
      const deployed = { deployed_at: '2026-01-02T00:00:00.000Z' };
      await progress({ run_id: runIdOf('build-2'), run_number: 2, run_mode: 'build', seq: 1, status: 'completed', is_finished: true, wrote_instructions: true, ...deployed });
      await progress({ run_id: runIdOf('run-3'), run_number: 3, agent_generation: generation + 1, deployed_at: '2026-02-01T00:00:00.000Z' });
      await progress({ run_id: runIdOf('run-4'), run_number: 4, agent_generation: undefined, at: '2026-01-03T00:00:00.000Z' });
      await progress({ run_id: runIdOf('run-1'), seq: 7, status: 'completed', last_chat_message: 'late' });
      await progress({ run_id: runIdOf('build-2'), run_number: 2, run_mode: 'build', seq: 0, is_finished: false });
      const name = (fields: Partial<RunAgentNameEvent>) =>
        s.progress.process({
          name: 'run.agent_name',
          data: { run_id: runIdOf('build-2'), agent_id: agent.agent_id, user_id: user.id, seq: 2, name: 'n', explanation: null, agent_generation: generation, ...fields },
        } as Job<RunAgentNameEvent>);
      await name({ name: 'Built name', explanation: 'why' });
      await name({ name: 'Other generation', agent_generation: generation + 1 });
      const renamed = (await s.agents.update({ user_id: user.id, agent_id: agent.agent_id, agent_name: { name: 'Person name' } })).agent_name;
      await name({ name: 'Built again', explanation: null });
      const { workspace_id: _workspace, ...summary } = await s.agents.get(user.id, agent.agent_id);
      const asked = [agent.agent_id, randomUUID()].map((agent_id) => ({ agent_id, user_id: user.id }));
      const starts = await s.context.startContexts({ agents: asked });
      return { renamed, summary, starts: starts.agents.map((a) => [a.deployment_state, a.generation === generation]) };
    }));

  it('console sessions: setup, sign-in, the sessions kept, logout and a password reset', () =>
    same(async (s, run) => {
      const email = `console-${run}@example.test`;
      const setupOpen = await s.sessions.setupRequired();
      const { setup_token } = await s.sessions.issueSetupToken().catch(() => ({ setup_token: 'closed' }));
      const user = await s.users.createUser(email);
      await s.sessions.setPassword(email, 'a first password');
      const { password_hash } = (await s.sessions.loginCredentials(` ${email.toUpperCase()}`))!;
      const wrong = await outcome(s.sessions.createSession(user.id, `${password_hash}x`, hashToken(`${run}-x`)));
      for (let i = 0; i <= SESSIONS_PER_USER; i++) await s.sessions.createSession(user.id, password_hash, hashToken(`${run}-${i}`));
      const live = async () => {
        const out = [];
        for (let i = 0; i <= SESSIONS_PER_USER; i++) out.push((await s.sessions.verify(hashToken(`${run}-${i}`)))?.email === email);
        return out;
      };
      const kept = await live();
      const logout = [await s.sessions.end(hashToken(`${run}-5`)), await s.sessions.end(hashToken(`${run}-5`))];
      const tokenChecks = [await outcome(s.sessions.checkSetupToken(hashToken(setup_token))), await outcome(s.sessions.checkSetupToken(hashToken(run)))];
      const sessionId = (await s.sessions.verify(hashToken(`${run}-6`)))!.session_id;
      await s.keys.create(user.id, 'by the console', sessionId);
      const ending = await s.sessions.createSession(user.id, password_hash, hashToken(`${run}-e`));
      await s.sessions.end(hashToken(`${run}-e`));
      const endedSession = await outcome(s.keys.create(user.id, 'by an ended session', ending.session_id));
      await s.sessions.createSession(user.id, password_hash, hashToken(`${run}-r`), `${password_hash}-rehashed`);
      const rehashed = (await s.sessions.loginCredentials(email))!.password_hash === `${password_hash}-rehashed`;
      const reset = await s.sessions.setPassword(email, 'a second password');
      const second = await s.sessions.setPassword(email, 'a third password', { revokeSessionKeys: true });
      await s.sessions.purgeExpired();
      const setupAfter = await outcome(
        s.sessions.setup({ setup_token_hash: hashToken(setup_token), email: `x-${email}`, password_hash: 'h', session_token_hash: hashToken(run) }),
      );
      return {
        setupOpen,
        wrong,
        kept,
        logout,
        tokenChecks,
        endedSession,
        rehashed,
        ended: reset.sessions_ended,
        listed: reset.session_made_keys.map((k) => k.name),
        listedAgain: second.session_made_keys.map((k) => k.name),
        after: await live(),
        setupAfter,
      };
    }));
});
