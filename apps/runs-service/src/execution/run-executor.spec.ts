import { ConfigService } from '@nestjs/config';
import { AgentContext, AgentsPatterns, EventNames, RunContinuation, RunDispatch, RuntimeLine } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { RunsEnv } from '../config/runs.env';
import { ToolCatalogueSource } from '../tools/tool-catalogue';
import { runRow } from '../database/run-row.fake';
import { RunEntity } from '../database/run.entity';
import { AgentRuntime } from './agent-runtime';
import { RunExecutor } from './run-executor';
import { RunSuspension } from '../input-requests/run-suspension';
import { FakeRunRecordStore } from '../lifecycle/run-record.store.fake';
import { recorderOnFakes } from '../lifecycle/run-recorder.fake';

/** A runtime that answers every dispatch with these lines. */
class ScriptedRuntime implements AgentRuntime {
  readonly dispatches: RunDispatch[] = [];

  constructor(private readonly lines: RuntimeLine[]) {}

  async *execute(dispatch: RunDispatch): AsyncIterable<RuntimeLine> {
    this.dispatches.push(dispatch);
    yield* this.lines;
  }
}

describe(RunExecutor.name, () => {
  /** `versions`: the instructions versions agents-service still keeps, by id (GetInstructionsVersion); `continuation`: an answer waiting to be claimed. */
  function setup(
    run: RunEntity,
    lines: RuntimeLine[],
    context: Partial<AgentContext> = {},
    { versions = {}, continuation }: { versions?: Record<number, AgentContext['instructions']>; continuation?: RunContinuation } = {},
  ) {
    const store = new FakeRunRecordStore([run]);
    const { lifecycle, pushed, admissionKicks } = recorderOnFakes(store);
    const runtime = new ScriptedRuntime(lines);
    const asked: string[] = [];
    const services = {
      request: async (pattern: string, message: { version_id?: number }) => {
        asked.push(pattern);
        if (pattern === AgentsPatterns.GetInstructionsVersion) return { instructions: versions[message.version_id!] ?? null };
        return { generation: 1, instructions: { content: 'do it', plan_steps: null }, ...context };
      },
    } as unknown as ServiceClient;
    const settings: Record<string, number | string> = {
      RUN_TIMEOUT_MS: 60_000,
      RUN_PAUSE_AFTER_MS: 60_000,
      CREDIT_PRICES: JSON.stringify([{ model: '*', input_per_million: 500_000, output_per_million: 1_000_000 }]),
    };
    const config = { get: (name: string) => settings[name] } as unknown as ConfigService<RunsEnv, true>;
    const tools = { icons: async () => (tool: string) => (tool === 'search' ? 'magnifier' : null) } as unknown as ToolCatalogueSource;
    const suspended: Array<{ line: RuntimeLine; timeLeftMs: number }> = [];
    let unclaimed = continuation;
    const suspension = {
      suspend: async (_run: RunEntity, line: RuntimeLine, deadline: number) => void suspended.push({ line, timeLeftMs: deadline - Date.now() }),
      claimContinuation: async () => {
        const claimed = unclaimed && { continuation: unclaimed, timeLeftMs: 5000 };
        unclaimed = undefined;
        return claimed;
      },
    } as unknown as RunSuspension;
    const sut = new RunExecutor(store, runtime, lifecycle, services, config, tools, suspension);
    const events = () => store.events.map((e) => [e.index, Object.keys(e.body)[0]]);
    const saved = () => store.runs.get(run.id)!;
    return { sut, store, runtime, asked, pushed, admissionKicks, events, saved, suspended };
  }

  it('records event 0, then each line with contiguous indices and counters, and ends the run with its terminal line', async () => {
    const run = runRow();
    const { sut, events, saved, pushed, admissionKicks, store } = setup(run, [
      { type: 'step', title: 'a' },
      { type: 'message', text: 'hi' },
      { type: 'step', title: 'b' },
      { type: 'completed', outcome: 'success', summary: 'done' },
    ]);
    await sut.execute(run.id);
    expect(events()).toEqual([
      [0, 'started'],
      [1, 'step'],
      [2, 'message'],
      [3, 'step'],
      [4, 'completed'],
    ]);
    expect(saved()).toMatchObject({ status: 'completed', isFinished: true, outcome: 'success', summary: 'done', eventCount: '5', stepCount: '2' });
    expect(pushed.map((p) => [p.index, p.finished])).toEqual([[0, false], [1, false], [2, false], [3, false], [4, true]]);
    expect(store.outbox.map((w) => w.event)).toEqual([
      EventNames.RunStarted,
      EventNames.RunProgress,
      EventNames.RunProgress,
      EventNames.RunCompleted,
      EventNames.RunProgress,
    ]);
    expect(admissionKicks).toEqual([run.userId]);
  });

  it("sends the run's instructions to agents-service by event, in the change that records the line, and never by request", async () => {
    const run = runRow({ runMode: 'build', agentGeneration: '3' });
    const plan_steps = [{ title: 't', description: 'd', tools: [], order: 0 }];
    const { sut, store, asked, saved } = setup(
      run,
      [
        { type: 'instructions', content: 'new', plan_steps },
        { type: 'completed', outcome: 'success' },
      ],
      { generation: 3 },
    );
    await sut.execute(run.id);
    expect(store.outboxOf(EventNames.RunInstructions)).toEqual([
      { run_id: run.id, agent_id: run.agentId, user_id: run.userId, seq: 1, content: 'new', plan_steps, agent_generation: 3 },
    ]);
    expect(asked).toEqual([AgentsPatterns.GetAgentForRun]);
    expect(saved().wroteInstructions).toBe(true);
  });

  it("sends a build run's agent_name to agents-service by event; a run that is not a build names nothing", async () => {
    const lines: RuntimeLine[] = [
      { type: 'agent_name', name: 'Digest', explanation: 'Reads three pages' },
      { type: 'completed', outcome: 'success' },
    ];
    const build = runRow({ runMode: 'build' });
    const built = setup(build, lines);
    await built.sut.execute(build.id);
    expect(built.store.outboxOf(EventNames.RunAgentName)).toEqual([
      { run_id: build.id, agent_id: build.agentId, user_id: build.userId, seq: 1, name: 'Digest', explanation: 'Reads three pages', agent_generation: 1 },
    ]);
    const plain = runRow();
    const ran = setup(plain, lines);
    await ran.sut.execute(plain.id);
    expect([ran.store.outboxOf(EventNames.RunAgentName), ran.saved().status]).toEqual([[], 'completed']);
  });

  it('records what version 2 lines say: title, tools used with their catalogue icons, usage priced into credits', async () => {
    const run = runRow();
    const { sut, saved } = setup(run, [
      { type: 'title', title: 'Morning digest' },
      { type: 'tool_call', call_id: 'c1', tool: 'search', input: { q: 'x' } },
      { type: 'tool_result', call_id: 'c1', tool: 'search', output: 'ok', truncated: false, is_error: false },
      { type: 'tool_call', call_id: 'c2', tool: 'http_request', input: { url: 'https://example.test/a?b=1' } },
      { type: 'tool_call', call_id: 'c3', tool: 'search', input: { q: 'y' } },
      { type: 'usage', model: 'm-1', input_tokens: 3, output_tokens: 1 },
      { type: 'usage', model: 'm-2', input_tokens: 1, output_tokens: 0 },
      { type: 'completed', outcome: 'success', summary: 'done' },
    ]);
    await sut.execute(run.id);
    expect(saved()).toMatchObject({
      title: 'Morning digest',
      toolCallCount: 3,
      toolIcons: [
        { action_type: 'search', favicon_url: null, icon: 'magnifier' },
        { action_type: 'http_request', favicon_url: 'https://example.test/favicon.ico', icon: null },
      ],
      inputTokens: '4',
      outputTokens: '1',
      modelCalls: 2,
      // 4 input tokens at half a credit each, 1 output token at 1 credit (prices are per million tokens)
      creditMillionths: '3000000',
      policyModel: 'm-2',
    });
  });

  it("dispatches the agent's instructions with plan_steps always an array", async () => {
    const run = runRow();
    const { sut, runtime } = setup(run, [{ type: 'completed', outcome: 'success' }]);
    await sut.execute(run.id);
    expect(runtime.dispatches.map((d) => d.instructions)).toEqual([{ content: 'do it', plan_steps: [] }]);
  });

  it('records the instructions version the run was dispatched with, and keeps it through the run', async () => {
    const run = runRow();
    const versioned = { instructions: { content: 'do it', plan_steps: [], version_id: 42 } };
    const { sut, saved } = setup(run, [{ type: 'step', title: 'a' }, { type: 'completed', outcome: 'success' }], versioned);
    await sut.execute(run.id);
    expect(saved()).toMatchObject({ status: 'completed', instructionsVersionId: '42' });
    const bare = runRow();
    const { sut: withoutInstructions, saved: savedBare } = setup(bare, [{ type: 'completed', outcome: 'success' }], { instructions: null });
    await withoutInstructions.execute(bare.id);
    expect(savedBare().instructionsVersionId).toBeNull();
  });

  it("dispatches a replay with its pinned instructions version, not the agent's current one, and records that version", async () => {
    const run = runRow({ pinnedInstructionsVersionId: '7', replayOf: '44444444-4444-4444-8444-444444444444' });
    const pinned = { content: 'the old way', plan_steps: [{ title: 't' }], version_id: 7 };
    const current = { instructions: { content: 'the new way', plan_steps: [], version_id: 9 } };
    const { sut, runtime, saved, asked } = setup(run, [{ type: 'completed', outcome: 'success' }], current, { versions: { 7: pinned } });
    await sut.execute(run.id);
    expect(runtime.dispatches.map((d) => d.instructions)).toEqual([{ content: 'the old way', plan_steps: [{ title: 't' }] }]);
    expect(saved()).toMatchObject({ status: 'completed', instructionsVersionId: '7' });
    expect(asked).toEqual([AgentsPatterns.GetAgentForRun, AgentsPatterns.GetInstructionsVersion]);
  });

  it('ends a replay in error, without executing it, when its pinned version was pruned after it was accepted', async () => {
    const run = runRow({ pinnedInstructionsVersionId: '7' });
    const { sut, runtime, store, saved } = setup(run, [{ type: 'completed', outcome: 'success' }]);
    await sut.execute(run.id);
    expect([runtime.dispatches, saved().status]).toEqual([[], 'error']);
    expect(store.events.map((e) => e.body)).toEqual([
      { failed: { error: 'its instructions version 7 was pruned before the run started (QUOTA_INSTRUCTION_VERSIONS_KEPT)' } },
    ]);
  });

  it('ends a run in error, without executing it, when its agent is another generation now', async () => {
    const run = runRow({ agentGeneration: '1' });
    const { sut, runtime, events, saved } = setup(run, [{ type: 'completed', outcome: 'success' }], { generation: 2 });
    await sut.execute(run.id);
    expect([runtime.dispatches, events(), saved().status]).toEqual([[], [[0, 'failed']], 'error']);
  });

  it('ends in error a run that already has events (its worker died mid-run), without executing it again', async () => {
    const run = runRow({ eventCount: '3' });
    const { sut, runtime, asked, saved } = setup(run, [{ type: 'completed', outcome: 'success' }]);
    await sut.execute(run.id);
    expect([runtime.dispatches, asked, saved().status, saved().eventCount]).toEqual([[], [AgentsPatterns.GetAgentForRun], 'error', '4']);
  });

  it('stops reading at a suspending line (version 3) and hands it to the suspension, with the time the run has left', async () => {
    const run = runRow();
    const ask = { type: 'waiting_for_input', suspend: true, input_id: 'q', prompt: 'ok?', choices: ['approve', 'reject'], state: { n: 1 } };
    const { sut, events, saved, suspended } = setup(run, [{ type: 'step', title: 'a' }, ask, { type: 'step', title: 'late' }]);
    await sut.execute(run.id);
    expect([events(), saved().status]).toEqual([[[0, 'started'], [1, 'step']], 'in_progress']);
    expect(suspended).toEqual([{ line: ask, timeLeftMs: expect.any(Number) }]);
    expect(suspended[0].timeLeftMs).toBeGreaterThan(59_000);
  });

  it('dispatches an answered run once more, as a continuation with the answer, its state and the time it had left', async () => {
    const run = runRow({ eventCount: '3' });
    const continuation: RunContinuation = {
      input_id: 'q',
      answer: 'approve',
      answered_by: { kind: 'user', user_id: run.userId, api_key_id: null },
      answered_at: '2026-01-01T00:00:00.000Z',
      state: { n: 1 },
    };
    const { sut, runtime, saved, events } = setup(run, [{ type: 'completed', outcome: 'success' }], {}, { continuation });
    const before = Date.now();
    await sut.execute(run.id);
    expect(runtime.dispatches).toHaveLength(1);
    expect(runtime.dispatches[0]).toMatchObject({ run_id: run.id, continuation });
    expect(Date.parse(runtime.dispatches[0].deadline_at) - before).toBeLessThanOrEqual(5000 + 50);
    expect([saved().status, events()]).toEqual(['completed', [[3, 'completed']]]);
    // Its job taken again (a stalled worker): the continuation was claimed, so the run is not dispatched twice.
    await sut.execute(run.id);
    expect(runtime.dispatches).toHaveLength(1);
  });

  it('fails a run whose runtime closes the stream without a terminal line, and ignores a finished run', async () => {
    const run = runRow();
    const { sut, saved, events } = setup(run, [{ type: 'step', title: 'a' }]);
    await sut.execute(run.id);
    expect([saved().status, events().at(-1)]).toEqual(['error', [2, 'failed']]);
    await sut.execute(run.id);
    expect(events()).toHaveLength(3);
  });

  it('records nothing after a terminal line', async () => {
    const run = runRow();
    const { sut, events } = setup(run, [
      { type: 'failed', error: 'boom' },
      { type: 'step', title: 'late' },
    ]);
    await sut.execute(run.id);
    expect(events()).toEqual([
      [0, 'started'],
      [1, 'failed'],
    ]);
  });
});
