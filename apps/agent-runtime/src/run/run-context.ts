import { RunDispatch, ToolCatalogueEntry } from '@aas/contracts';
import type { LanguageModel } from 'ai';
import { LineWriter } from '../lines/line-writer';
import { RunToolContext } from '../tools/run-tools';
import { RunBudget } from './run-budget';

/** Everything one run works with. Aborting `controller` ends it; its reason says why. */
export interface RunContext {
  dispatch: RunDispatch;
  writer: LineWriter;
  model: LanguageModel;
  modelName: string;
  maxRetries: number;
  /** MODEL_MAX_OUTPUT_TOKENS; undefined: the provider's default. */
  maxOutputTokens?: number;
  budget: RunBudget;
  controller: AbortController;
  tools: Omit<RunToolContext, 'writer'>;
  /** What build runs offer: the built-in tools and the MCP servers'. */
  catalogue: ToolCatalogueEntry[];
}
