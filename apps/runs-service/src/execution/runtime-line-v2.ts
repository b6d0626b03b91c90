import { AgentNameInput, RuntimeLine, isWellFormedText } from '@aas/contracts';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';

/** Most tokens one `usage` line may report, input and output each: far above any model call, and priced exactly. */
export const MAX_TOKENS_PER_USAGE_LINE = 100_000_000;
export const MAX_TITLE_LENGTH = 500;
export const MAX_TOOL_NAME_LENGTH = 200;
export const MAX_MODEL_LENGTH = 200;

export interface Usage {
  model: string;
  inputTokens: number;
  outputTokens: number;
}

export interface ToolCall {
  tool: string;
  input: unknown;
}

/** A v2 line read for what it changes of the run, or why its form breaks the protocol (the run then ends in error). */
export type Read<T> = { value: T } | { refusal: string };

export function readUsage(line: RuntimeLine): Read<Usage> {
  const model = text(line.model, MAX_MODEL_LENGTH);
  if (model === null) return { refusal: textRule('model', MAX_MODEL_LENGTH) };
  for (const field of ['input_tokens', 'output_tokens'] as const) {
    const tokens = line[field];
    if (!Number.isSafeInteger(tokens) || (tokens as number) < 0 || (tokens as number) > MAX_TOKENS_PER_USAGE_LINE) {
      return { refusal: `${field} must be an integer from 0 to ${MAX_TOKENS_PER_USAGE_LINE}` };
    }
  }
  return { value: { model, inputTokens: line.input_tokens as number, outputTokens: line.output_tokens as number } };
}

export function readToolCall(line: RuntimeLine): Read<ToolCall> {
  const tool = text(line.tool, MAX_TOOL_NAME_LENGTH);
  return tool === null ? { refusal: textRule('tool', MAX_TOOL_NAME_LENGTH) } : { value: { tool, input: line.input } };
}

export function readTitle(line: RuntimeLine): Read<string> {
  const title = text(line.title, MAX_TITLE_LENGTH);
  return title === null ? { refusal: textRule('title', MAX_TITLE_LENGTH) } : { value: title };
}

/** Checked as PATCH /v1/agents/{id} checks a person's `agent_name` (AgentNameInput). */
export function readAgentName(line: RuntimeLine): Read<{ name: string; explanation: string | null }> {
  const input = plainToInstance(AgentNameInput, { name: line.name, explanation: line.explanation ?? null });
  const [first] = validateSync(input, { forbidUnknownValues: false });
  if (first) return { refusal: Object.values(first.constraints ?? {})[0] ?? `${first.property} is not valid` };
  return { value: { name: input.name, explanation: input.explanation ?? null } };
}

/** The string when it is 1..max characters PostgreSQL can store (the API's text rules), else null. */
function text(value: unknown, max: number): string | null {
  return typeof value === 'string' && value.length >= 1 && value.length <= max && isWellFormedText(value) ? value : null;
}

function textRule(field: string, max: number): string {
  return `${field} must be well-formed text of 1 to ${max} characters`;
}
