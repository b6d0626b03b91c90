import { RuntimeLine } from './runtime-line';

/** The dispatch body of docs/runtime-protocol.md. */
export interface RunDispatch {
  run_id: string;
  agent_id: string;
  run_number: number;
  run_mode: 'build' | 'run';
  user_message: string | null;
  trigger_kind: string;
  /** `plan_steps` is always an array, empty when the instructions have none. */
  instructions: { content: string; plan_steps: unknown[] } | null;
  /** Runs started by a trigger only: what started it (docs/triggers.md). */
  trigger?: RunDispatchTrigger;
}

export interface RunDispatchTrigger {
  kind: string;
  trigger_id: string;
  /** Event-trigger hops from the run that started the chain. */
  depth: number;
  /** The trigger's data: for an inbound call its JSON `payload` and safe `headers`; for an event its `source_run`. */
  [field: string]: unknown;
}

/** Executes a run, yielding protocol lines until it ends; aborting `signal` ends it at once. */
export interface AgentRuntime {
  execute(dispatch: RunDispatch, signal: AbortSignal): AsyncIterable<RuntimeLine>;
}

export const AGENT_RUNTIME = Symbol('AGENT_RUNTIME');

/** The runtime broke the protocol or could not be reached; the run ends in error with this reason. */
export class RuntimeFailure extends Error {}
