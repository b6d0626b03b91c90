import { RunStopped } from './run-stop';

/** A budget the run went past; the `failed` line's error names it. */
export class RunLimitReached extends RunStopped {
  override name = 'RunLimitReached';
}

/** Token use of one run against AGENT_MAX_TOKENS, and the step limit's message. */
export class RunBudget {
  private inputTokens = 0;
  private outputTokens = 0;

  constructor(
    readonly maxSteps: number,
    readonly maxTokens: number,
  ) {}

  /** Adds one model call's usage; returns the limit reached, if any. */
  addUsage(input: number | undefined, output: number | undefined): RunLimitReached | undefined {
    this.inputTokens += input ?? 0;
    this.outputTokens += output ?? 0;
    return this.used > this.maxTokens
      ? new RunLimitReached(`token limit (AGENT_MAX_TOKENS=${this.maxTokens}) reached: the run used ${this.used} tokens`)
      : undefined;
  }

  get used(): number {
    return this.inputTokens + this.outputTokens;
  }

  stepLimit(): RunLimitReached {
    return new RunLimitReached(`step limit (AGENT_MAX_STEPS=${this.maxSteps}) reached before the agent finished`);
  }
}

export const OUTCOMES = ['success', 'partial', 'fail'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** Longest summary a `completed` line carries, in characters. */
export const SUMMARY_MAX_CHARS = 2000;

const OUTCOME_LINE = /^\s*OUTCOME:\s*(success|partial|fail)\s*(?:\n|$)/i;

/**
 * The run's outcome from the model's final text: a first line `OUTCOME: partial` (or fail, success)
 * sets it and is left out of the summary; without one the run succeeded.
 */
export function outcomeOf(finalText: string): { outcome: Outcome; text: string } {
  const match = OUTCOME_LINE.exec(finalText);
  if (!match) return { outcome: 'success', text: finalText.trim() };
  return { outcome: match[1].toLowerCase() as Outcome, text: finalText.slice(match[0].length).trim() };
}
