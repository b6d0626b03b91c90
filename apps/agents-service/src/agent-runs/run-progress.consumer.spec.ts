import { RunAgentNameEvent, RunInstructionsEvent, RunProgressEvent } from '@aas/contracts';
import { ResourceNotFoundError } from '@aas/problem-details';
import { Job, UnrecoverableError } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { FakeAgentStore } from '../agents/agent.store.fake';
import { AgentRow, InMemoryDatabase } from '../database/in-memory-database.fake';
import { InstructionsService, InstructionsWrite } from '../instructions/instructions.service';
import { FakeAgentRunsStore } from './agent-runs.store.fake';
import { RunEffects } from './run-effects';
import { RunProgressConsumer } from './run-progress.consumer';

/** Run ids as the producer writes them (UUIDs), named for reading. */
const runIds = new Map<string, string>();
const runId = (name: string): string => runIds.get(name) ?? runIds.set(name, randomUUID()).get(name)!;

describe(RunProgressConsumer.name, () => {
  async function setup() {
    const db = new InMemoryDatabase();
    const user = db.addUser();
    const agentId = randomUUID();
    await db.transaction(async (tx) => {
      const workspaceId = randomUUID();
      db.tables.workspaces.push({ id: workspaceId, userId: user.id } as (typeof db.tables.workspaces)[number]);
      await new FakeAgentStore(db).insertAndOnboard(tx, {
        id: agentId,
        userId: user.id,
        workspaceId,
        ownerUserId: null,
        isSubagent: false,
        derivedFromAgentId: null,
      });
    });
    /** What the consumer asks InstructionsService to write (its own tests cover the write); `refuse` makes it refuse. */
    const writes: Array<[string, string, InstructionsWrite]> = [];
    let refuse: Error | undefined;
    const instructions = {
      put: async (userId: string, agentId: string, write: InstructionsWrite) => {
        if (refuse) throw refuse;
        writes.push([userId, agentId, write]);
      },
    } as unknown as InstructionsService;
    const sut = new RunProgressConsumer(new RunEffects(new FakeAgentRunsStore(db), instructions));
    const agent = (): AgentRow => db.tables.agents.find((a) => a.id === agentId)!;
    const event = (fields: Partial<RunProgressEvent> = {}): RunProgressEvent => ({
      run_id: runId('run-1'),
      agent_id: agentId,
      user_id: user.id,
      run_number: 1,
      run_mode: 'run',
      seq: 0,
      status: 'in_progress',
      is_finished: false,
      has_pending_input: false,
      policy_type: null,
      wrote_instructions: false,
      at: '2026-01-01T00:00:00.000Z',
      agent_generation: Number(agent().seq),
      ...fields,
    });
    const progress = (fields: Partial<RunProgressEvent> = {}) => sut.process({ name: 'run.progress', data: event(fields) } as Job<RunProgressEvent>);
    const wrote = (fields: Partial<RunInstructionsEvent> = {}) =>
      sut.process({
        name: 'run.instructions',
        data: { run_id: runId('build-1'), agent_id: agentId, user_id: user.id, seq: 3, content: 'do it', agent_generation: 4, ...fields },
      } as Job<RunInstructionsEvent>);
    const named = (fields: Partial<RunAgentNameEvent> = {}) =>
      sut.process({
        name: 'run.agent_name',
        data: { run_id: runId('build-1'), agent_id: agentId, user_id: user.id, seq: 2, name: 'Digest', explanation: null, agent_generation: Number(agent().seq), ...fields },
      } as Job<RunAgentNameEvent>);
    return { agent, progress, wrote, named, writes, userId: user.id, agentId, refuse: (error: Error) => (refuse = error) };
  }

  it("names the agent from a build run's agent_name, only in the run's generation of it", async () => {
    const { agent, named } = await setup();
    await named({ agent_generation: Number(agent().seq) + 1, name: 'Other generation' });
    expect([agent().name, agent().nameExplanation]).toEqual([null, null]);
    await named({ name: 'Digest', explanation: 'Reads pages' });
    expect([agent().name, agent().nameExplanation]).toEqual(['Digest', 'Reads pages']);
  });

  it("sets the agent's latest run summary from a run's progress", async () => {
    const { agent, progress } = await setup();
    await progress({ status: 'waiting', has_pending_input: true, last_chat_message: 'hello', policy_type: 'ask' });
    expect(agent()).toMatchObject({
      latestRunId: runId('run-1'),
      latestRunStatus: 'waiting',
      latestRunIsFinished: false,
      latestRunHasPendingInput: true,
      hasRuns: true,
      lastActivityAt: new Date('2026-01-01T00:00:00.000Z'),
      lastChatMessage: 'hello',
      policyType: 'ask',
    });
  });

  it('keeps the last chat message and policy type when a later snapshot has none', async () => {
    const { agent, progress } = await setup();
    await progress({ last_chat_message: 'hello', policy_type: 'ask' });
    await progress({ seq: 1, status: 'completed', is_finished: true });
    expect(agent()).toMatchObject({ latestRunStatus: 'completed', latestRunIsFinished: true, lastChatMessage: 'hello', policyType: 'ask' });
  });

  it('ignores a snapshot older than the one the agent reflects (a redelivered or late event)', async () => {
    const { agent, progress } = await setup();
    await progress({ run_id: runId('run-2'), run_number: 2, seq: 0, status: 'in_progress' });
    await progress({ run_id: runId('run-1'), run_number: 1, seq: 5, status: 'completed' });
    await progress({ run_id: runId('run-2'), run_number: 2, seq: 0, status: 'failed' });
    expect([agent().latestRunId, agent().latestRunStatus]).toEqual([runId('run-2'), 'in_progress']);
  });

  it('records a build run in the build fields: active until it finishes, and the instruction build once it wrote instructions', async () => {
    const { agent, progress } = await setup();
    await progress({ run_id: runId('build-1'), run_mode: 'build' });
    expect(agent()).toMatchObject({ latestBuildRunId: runId('build-1'), activeBuildRunId: runId('build-1'), hasInstructionBuild: true, latestInstructionBuildRunId: null });
    await progress({ run_id: runId('build-1'), run_mode: 'build', seq: 1, is_finished: true, wrote_instructions: true, status: 'completed' });
    expect(agent()).toMatchObject({ latestBuildRunId: runId('build-1'), activeBuildRunId: null, latestInstructionBuildRunId: runId('build-1') });
  });

  it('leaves the build fields alone for a run that is not a build', async () => {
    const { agent, progress } = await setup();
    await progress({ run_id: runId('build-1'), run_mode: 'build', is_finished: true, wrote_instructions: true });
    await progress({ run_id: runId('run-2'), run_number: 2 });
    expect(agent()).toMatchObject({ latestRunId: runId('run-2'), latestBuildRunId: runId('build-1'), latestInstructionBuildRunId: runId('build-1') });
  });

  it('deploys the agent when a build run reports a deployment, at the latest deployment time', async () => {
    const { agent, progress } = await setup();
    await progress({ run_mode: 'build', seq: 0 });
    expect(agent().deploymentState).toBe('not_deployed');
    await progress({ run_mode: 'build', seq: 1, deployed_at: '2026-01-02T00:00:00.000Z' });
    await progress({ run_mode: 'build', seq: 2, deployed_at: '2026-01-01T12:00:00.000Z' });
    expect([agent().deploymentState, agent().deployedAt]).toEqual(['deployed', new Date('2026-01-02T00:00:00.000Z')]);
  });

  it('changes nothing of an agent of another generation (one recreated with the id); an event without a generation applies', async () => {
    const { agent, progress } = await setup();
    const generation = Number(agent().seq);
    await progress({ agent_generation: generation - 1, run_mode: 'build', deployed_at: '2026-01-02T00:00:00.000Z' });
    expect(agent()).toMatchObject({ hasRuns: false, hasInstructionBuild: false, deploymentState: 'not_deployed' });
    await progress({ agent_generation: undefined, status: 'completed' });
    expect(agent()).toMatchObject({ hasRuns: true, latestRunStatus: 'completed' });
  });

  it("writes a run's instructions as the builder's, into the run's agent generation, at most once per content", async () => {
    const { wrote, writes, userId, agentId } = await setup();
    const plan_steps = [{ title: 't', description: 'd', tools: [], order: 0 }];
    await wrote({ plan_steps });
    expect(writes).toEqual([
      [userId, agentId, { content: 'do it', planSteps: plan_steps, sourceType: 'builder', sourceId: runId('build-1'), agentGeneration: 4, unlessCurrent: true }],
    ]);
  });

  it('fails an instructions job for good when the write is refused (the agent is gone): a retry would be refused alike', async () => {
    const { wrote, refuse, agentId } = await setup();
    refuse(new ResourceNotFoundError('Agent', agentId));
    await expect(wrote()).rejects.toBeInstanceOf(UnrecoverableError);
    refuse(new Error('connection lost'));
    await expect(wrote()).rejects.not.toBeInstanceOf(UnrecoverableError);
  });
});
