import { RunAgentNameEvent, RunEndEffects, RunInstructionsEvent, RunProgressEvent } from '@aas/contracts';
import { ResourceNotFoundError } from '@aas/problem-details';
import { RunEffects } from './run-effects';
import { RunEndsHandlers } from './run-ends.handlers';

describe(RunEndsHandlers.name, () => {
  function setup(refusal?: Error) {
    const applied: string[] = [];
    const effects = {
      writeInstructions: async (e: RunInstructionsEvent) => {
        if (refusal) throw refusal;
        applied.push(`instructions ${e.run_id}`);
      },
      writeAgentName: async (e: RunAgentNameEvent) => void applied.push(`name ${e.name} ${e.run_id}`),
      progress: async (e: RunProgressEvent) => void applied.push(`progress ${e.run_id}`),
    } as unknown as RunEffects;
    return { sut: new RunEndsHandlers(effects), applied };
  }
  const end = (runId: string, instructions = false): RunEndEffects =>
    ({
      lifecycle: { run_id: runId },
      progress: { run_id: runId },
      ...(instructions ? { instructions: { run_id: runId, content: 'c' } } : {}),
    }) as unknown as RunEndEffects;

  it("applies each end's instructions before its final progress (deployment), in order, and answers how many", async () => {
    const { sut, applied } = setup();
    expect(await sut.recordRunEnds({ ends: [end('a', true), end('b')] })).toEqual({ applied: 2 });
    expect(applied).toEqual(['instructions a', 'progress a', 'progress b']);
  });

  it("names the agent with a build run's last name before its final progress, so the name is there when the run reads finished", async () => {
    const { sut, applied } = setup();
    const named = { ...end('a', true), agent_name: { run_id: 'a', name: 'Weather reporter', explanation: null } } as unknown as RunEndEffects;
    expect(await sut.recordRunEnds({ ends: [named] })).toEqual({ applied: 1 });
    expect(applied).toEqual(['instructions a', 'name Weather reporter a', 'progress a']);
  });

  it('goes on without instructions agents-service refuses (the agent gone, over a quota): a retry would not change that', async () => {
    const { sut, applied } = setup(new ResourceNotFoundError('Agent', 'a'));
    expect(await sut.recordRunEnds({ ends: [end('a', true)] })).toEqual({ applied: 1 });
    expect(applied).toEqual(['progress a']);
  });

  it('fails the whole request on any other error, for runs-service to try again', async () => {
    const { sut } = setup(new Error('connection lost'));
    await expect(sut.recordRunEnds({ ends: [end('a', true)] })).rejects.toThrow('connection lost');
  });
});
