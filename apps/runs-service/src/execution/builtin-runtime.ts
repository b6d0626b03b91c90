import { setTimeout as sleep } from 'node:timers/promises';
import { AgentRuntime } from './agent-runtime';
import { RunDispatch, RuntimeLine } from '@aas/contracts';

const STARTER_INSTRUCTIONS = 'Describe what this agent should do, step by step.';

/**
 * The in-process runtime of docs/runtime-protocol.md: one step per plan step (one
 * when there are none), spaced by BUILTIN_RUNTIME_STEP_MS, then completed with
 * outcome success; a build run also writes its instructions back.
 */
export class BuiltinRuntime implements AgentRuntime {
  constructor(private readonly stepMs: number) {}

  async *execute(dispatch: RunDispatch, signal: AbortSignal): AsyncIterable<RuntimeLine> {
    const steps = (dispatch.instructions?.plan_steps ?? []) as { title?: unknown }[];
    const titles = steps.length > 0 ? steps.map((s, i) => (typeof s?.title === 'string' ? s.title : `Step ${i + 1}`)) : ['Run'];
    for (const [i, title] of titles.entries()) {
      if (this.stepMs > 0) await sleep(this.stepMs, undefined, { signal });
      signal.throwIfAborted();
      yield { type: 'step', title, index: i };
    }
    if (dispatch.run_mode === 'build') {
      yield {
        type: 'instructions',
        content: dispatch.instructions?.content ?? STARTER_INSTRUCTIONS,
        plan_steps: dispatch.instructions?.plan_steps ?? [],
      };
    }
    yield { type: 'completed', outcome: 'success', summary: `Completed ${titles.length} step(s)` };
  }
}
