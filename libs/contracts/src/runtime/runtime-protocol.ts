/**
 * The agent runtime protocol (docs/runtime-protocol.md), defined once for both sides: runs-service
 * dispatches runs and reads lines; apps/agent-runtime is the reference runtime that answers them.
 */

/**
 * Version 2 adds `protocol_version`, `scheduled_for`, `deadline_at` and the line types of RuntimeLineV2;
 * version 3 a `waiting_for_input` line that suspends the run and the continuation dispatch that resumes it.
 */
export const RUNTIME_PROTOCOL_VERSION = 3;

/** The dispatch body. Version 1 runtimes ignore the fields they do not know, so they keep working. */
export interface RunDispatch {
  protocol_version: number;
  run_id: string;
  agent_id: string;
  run_number: number;
  run_mode: 'build' | 'run';
  user_message: string | null;
  trigger_kind: string;
  /** `plan_steps` is always an array, empty when the instructions have none. */
  instructions: { content: string; plan_steps: unknown[] } | null;
  /** Scheduled runs: the fire time (ISO 8601, UTC); null for every other run. */
  scheduled_for: string | null;
  /** When runs-service gives up on the run (RUN_TIMEOUT_MS from the dispatch), ISO 8601 UTC. */
  deadline_at: string;
  /** Runs started by a trigger only: what started it (docs/triggers.md). */
  trigger?: RunDispatchTrigger;
  /** Version 3, a continuation only: the answer to the input request the run suspended on, and its state. */
  continuation?: RunContinuation;
}

/** Who answered an input request: a person (by API key or console session), or its timeout's fallback. */
export interface InputAnswerer {
  kind: 'user' | 'timeout';
  /** `user`: the owner's id. */
  user_id?: string;
  /** `user`: the API key's id, or null when a console session answered. */
  api_key_id?: string | null;
}

/** The continuation dispatch's part (version 3): the same run, resumed with an answer. */
export interface RunContinuation {
  input_id: string;
  /** The answer, valid against the request's schema (or one of its choices); null when the timeout fell back to nothing. */
  answer: unknown;
  answered_by: InputAnswerer;
  /** ISO 8601 UTC. */
  answered_at: string;
  /** The `state` the suspending line carried, as it was sent. */
  state: unknown;
}

export interface RunDispatchTrigger {
  kind: string;
  trigger_id: string;
  /** Event-trigger hops from the run that started the chain. */
  depth: number;
  /** The trigger's data: for an inbound call its JSON `payload` and safe `headers`; for an event its `source_run`. */
  [field: string]: unknown;
}

/** One NDJSON line: a JSON object with a string `type`. Unknown types are recorded as they are. */
export interface RuntimeLine {
  type: string;
  [key: string]: unknown;
}

/** The line types of version 2 (besides version 1's step, message, waiting_for_input, paused, resumed, instructions, completed, failed). */
export interface ToolCallLine extends RuntimeLine {
  type: 'tool_call';
  call_id: string;
  tool: string;
  input: unknown;
}

export interface ToolResultLine extends RuntimeLine {
  type: 'tool_result';
  call_id: string;
  tool: string;
  /** The tool's output as text, cut to the runtime's documented size. */
  output: string;
  truncated: boolean;
  is_error: boolean;
}

/** Model usage of one model call (or several): runs-service adds it up and prices it into credits. */
export interface UsageLine extends RuntimeLine {
  type: 'usage';
  model: string;
  input_tokens: number;
  output_tokens: number;
}

/** A build run names its agent. */
export interface AgentNameLine extends RuntimeLine {
  type: 'agent_name';
  name: string;
  explanation: string | null;
}

/** The run's title (what this run is doing, in a few words). */
export interface TitleLine extends RuntimeLine {
  type: 'title';
  title: string;
}

/** `waiting_for_input` as version 2 sends it for a question to a person (version 1 sends the type alone). */
export interface WaitingForInputLine extends RuntimeLine {
  type: 'waiting_for_input';
  input_id?: string;
  prompt?: string;
  /** JSON Schema of the answer. */
  schema?: Record<string, unknown>;
  /** Version 3: the runtime ends its stream after this line and is sent a continuation once answered. */
  suspend?: boolean;
  /** Version 3: instead of a schema, the answer is one of these strings (`["approve", "reject"]`). */
  choices?: string[];
  /** Version 3: email addresses answer links may be sent to (links come later; recorded now). */
  notify?: string[];
  /** Version 3: how long the request waits for an answer, in ms (INPUT_TIMEOUT_MS_* bounds). */
  timeout_ms?: number;
  /** Version 3: what happens at the timeout; `{"action":"fail"}` when absent. */
  on_timeout?: InputTimeoutFallback;
  /** Version 3: opaque to runs-service, kept and sent back in the continuation; at most INPUT_STATE_MAX_BYTES as JSON. */
  state?: unknown;
}

export const INPUT_TIMEOUT_ACTIONS = ['fail', 'reject', 'approve', 'default'] as const;
export type InputTimeoutAction = (typeof INPUT_TIMEOUT_ACTIONS)[number];

/** `default` answers `answer` (valid against the schema); `approve` and `reject` answer those strings; `fail` ends the run in error. */
export interface InputTimeoutFallback {
  action: InputTimeoutAction;
  answer?: unknown;
}

/** Largest `state` of a suspending line, as UTF-8 JSON (docs/runtime-protocol.md). */
export const INPUT_STATE_MAX_BYTES = 1_048_576;
/** A suspending line's `timeout_ms`: default, least and most. */
export const INPUT_TIMEOUT_MS_DEFAULT = 86_400_000;
export const INPUT_TIMEOUT_MS_MIN = 1000;
export const INPUT_TIMEOUT_MS_MAX = 30 * 86_400_000;

/** One tool of a runtime's catalogue, served by the runtime at `GET {AGENT_RUNTIME_URL}/tools` (version 2). */
export interface ToolCatalogueEntry {
  /** The name plan steps list in `tools` and `tool_call` lines carry: `http_request`, or `<server>.<tool>` for an MCP tool. */
  name: string;
  description: string;
  /** JSON Schema of the tool's input. */
  input_schema: Record<string, unknown>;
  /** An icon name for tool_icons (docs/runtime.md), or null. */
  icon: string | null;
  /** The MCP server that serves it, or null for a built-in tool. */
  server: string | null;
}

export interface ToolCatalogue {
  tools: ToolCatalogueEntry[];
}
