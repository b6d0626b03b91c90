import {
  INPUT_STATE_MAX_BYTES,
  INPUT_TIMEOUT_ACTIONS,
  INPUT_TIMEOUT_MS_DEFAULT,
  INPUT_TIMEOUT_MS_MAX,
  INPUT_TIMEOUT_MS_MIN,
  InputTimeoutAction,
  InputTimeoutFallback,
  RuntimeLine,
  isWellFormedText,
  jsonValueFault,
} from '@aas/contracts';
import { isEmail } from 'class-validator';
import { answerFaults, compileAnswerSchema, effectiveSchema } from './answer-schema';

export const INPUT_ID_MAX_LENGTH = 200;
export const INPUT_PROMPT_MAX_LENGTH = 10_000;
export const INPUT_CHOICES_MAX = 20;
export const INPUT_NOTIFY_MAX = 20;

/** What a suspending line asks, before runs-service gives it an id and its times. */
export interface SuspendingQuestion {
  inputId: string;
  prompt: string;
  schema: Record<string, unknown>;
  choices: string[] | null;
  notify: string[];
  timeoutMs: number;
  onTimeout: InputTimeoutFallback;
  /** The line's `state` as JSON text. */
  state: string;
}

/** A version 3 `waiting_for_input` line that suspends the run (docs/runtime-protocol.md). */
export function isSuspendingLine(line: RuntimeLine): boolean {
  return line.type === 'waiting_for_input' && line.suspend === true;
}

/** Reads a suspending line, or says how its form breaks the protocol (the run then ends in error). */
export function readSuspendingLine(line: RuntimeLine): { value: SuspendingQuestion } | { refusal: string } {
  const inputId = text(line.input_id, INPUT_ID_MAX_LENGTH);
  if (inputId === null) return { refusal: `input_id must be a string of 1 to ${INPUT_ID_MAX_LENGTH} characters` };
  const prompt = text(line.prompt, INPUT_PROMPT_MAX_LENGTH);
  if (prompt === null) return { refusal: `prompt must be a string of 1 to ${INPUT_PROMPT_MAX_LENGTH} characters` };
  const choices = readChoices(line.choices);
  if (typeof choices === 'string') return { refusal: choices };
  const schema = line.schema;
  if (choices === null && !isObject(schema)) return { refusal: 'a suspending line needs a schema (a JSON Schema object) or choices' };
  if (isObject(schema) && (jsonValueFault(schema) || 'refusal' in compileAnswerSchema(schema))) {
    return { refusal: 'schema is not a JSON Schema that can be stored and compiled' };
  }
  const notify = line.notify ?? [];
  if (!Array.isArray(notify) || notify.length > INPUT_NOTIFY_MAX || !notify.every((a) => typeof a === 'string' && isEmail(a))) {
    return { refusal: `notify must be an array of at most ${INPUT_NOTIFY_MAX} email addresses` };
  }
  const timeoutMs = line.timeout_ms ?? INPUT_TIMEOUT_MS_DEFAULT;
  if (!Number.isSafeInteger(timeoutMs) || (timeoutMs as number) < INPUT_TIMEOUT_MS_MIN || (timeoutMs as number) > INPUT_TIMEOUT_MS_MAX) {
    return { refusal: `timeout_ms must be an integer from ${INPUT_TIMEOUT_MS_MIN} to ${INPUT_TIMEOUT_MS_MAX}` };
  }
  const answerSchema = effectiveSchema(isObject(schema) ? schema : {}, choices);
  const onTimeout = readFallback(line.on_timeout, answerSchema);
  if (typeof onTimeout === 'string') return { refusal: onTimeout };
  const state = JSON.stringify(line.state ?? null);
  if (Buffer.byteLength(state, 'utf8') > INPUT_STATE_MAX_BYTES) return { refusal: `state is larger than ${INPUT_STATE_MAX_BYTES} bytes as JSON` };
  return {
    value: { inputId, prompt, schema: answerSchema, choices, notify: notify as string[], timeoutMs: timeoutMs as number, onTimeout, state },
  };
}

/** The event a suspending line is recorded as: the line without its state (kept with the request, not in the events). */
export function suspendingEvent(line: RuntimeLine, requestId: string): Record<string, unknown> {
  const { type, state: _state, ...rest } = line;
  return { [type]: { ...rest, request_id: requestId } };
}

/** The answer a timeout's fallback gives (null for `fail`). */
export function fallbackAnswer(fallback: InputTimeoutFallback): unknown {
  if (fallback.action === 'approve' || fallback.action === 'reject') return fallback.action;
  return fallback.action === 'default' ? fallback.answer : null;
}

function readChoices(value: unknown): string[] | null | string {
  if (value === undefined || value === null) return null;
  const ok =
    Array.isArray(value) &&
    value.length >= 1 &&
    value.length <= INPUT_CHOICES_MAX &&
    value.every((c) => text(c, INPUT_ID_MAX_LENGTH) !== null) &&
    new Set(value).size === value.length;
  return ok ? (value as string[]) : `choices must be 1 to ${INPUT_CHOICES_MAX} distinct strings of 1 to ${INPUT_ID_MAX_LENGTH} characters`;
}

function readFallback(value: unknown, schema: Record<string, unknown>): InputTimeoutFallback | string {
  if (value === undefined || value === null) return { action: 'fail' };
  const action = isObject(value) ? value.action : undefined;
  if (!INPUT_TIMEOUT_ACTIONS.includes(action as InputTimeoutAction)) return `on_timeout.action must be one of ${INPUT_TIMEOUT_ACTIONS.join(', ')}`;
  const fallback: InputTimeoutFallback = { action: action as InputTimeoutAction };
  if (fallback.action === 'default') fallback.answer = (value as Record<string, unknown>).answer;
  if (fallback.action === 'fail') return fallback;
  const answer = fallbackAnswer(fallback);
  if (answer === undefined || jsonValueFault(answer) || answerFaults(schema, answer).length > 0) {
    return `on_timeout ${fallback.action} gives an answer that does not match the request's schema`;
  }
  return fallback;
}

function text(value: unknown, max: number): string | null {
  return typeof value === 'string' && value.length >= 1 && value.length <= max && isWellFormedText(value) ? value : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
