import { RunDispatch, RuntimeLine } from '@aas/contracts';

/** Executes a run, yielding protocol lines until it ends; aborting `signal` ends it at once. */
export interface AgentRuntime {
  execute(dispatch: RunDispatch, signal: AbortSignal): AsyncIterable<RuntimeLine>;
}

export const AGENT_RUNTIME = Symbol('AGENT_RUNTIME');

/** The runtime broke the protocol or could not be reached; the run ends in error with this reason. */
export class RuntimeFailure extends Error {}
