import { ToolCatalogueEntry } from '@aas/contracts';
import { generateText, tool } from 'ai';
import { z } from 'zod';
import { truncateChars } from '../lines/truncate';
import { buildSystemPrompt } from './prompts';
import { RunContext } from './run-context';
import { RunStopped } from './run-stop';

const WRITE_AGENT = 'write_agent';

const writeAgentInput = z.object({
  name: z.string().min(1),
  explanation: z.string().optional(),
  title: z.string().optional(),
  content: z.string().min(1),
  plan_steps: z
    .array(z.object({ title: z.string(), description: z.string().optional(), tools: z.array(z.string()).optional() }))
    .optional(),
});
type WrittenAgent = z.infer<typeof writeAgentInput>;

/**
 * A build run: the model calls write_agent once (a forced tool call, so any OpenAI-compatible model can
 * answer it); the runtime turns its arguments into title, agent_name and instructions lines.
 */
export async function executeBuildRun(run: RunContext): Promise<void> {
  const { dispatch, writer } = run;
  const result = await generateText({
    model: run.model,
    system: buildSystemPrompt(run.catalogue),
    prompt: dispatch.user_message ?? 'Write the instructions of a useful automation agent.',
    tools: { [WRITE_AGENT]: tool({ description: 'Writes the agent: its name, explanation, instructions and plan.', inputSchema: writeAgentInput }) },
    toolChoice: { type: 'tool', toolName: WRITE_AGENT },
    maxRetries: run.maxRetries,
    maxOutputTokens: run.maxOutputTokens,
    abortSignal: run.controller.signal,
  });
  const usage = result.totalUsage;
  const limit = run.budget.addUsage(usage.inputTokens, usage.outputTokens);
  const call = result.toolCalls.find((candidate) => candidate.toolName === WRITE_AGENT && !candidate.invalid);
  const written = call ? writeAgentInput.safeParse(call.input) : undefined;
  if (!written?.success) {
    writer.write({ type: 'usage', model: run.modelName, input_tokens: usage.inputTokens ?? 0, output_tokens: usage.outputTokens ?? 0 });
    throw new RunStopped('the model did not write the agent (no valid write_agent call in its answer)');
  }
  const agent = written.data;
  writer.write({ type: 'title', title: truncateChars(agent.title?.trim() || agent.name, 200) });
  writer.write({ type: 'agent_name', name: truncateChars(agent.name.trim(), 200), explanation: agent.explanation?.trim() || null });
  const planSteps = planStepsOf(agent, run.catalogue);
  writer.write({ type: 'instructions', content: agent.content, plan_steps: planSteps });
  writer.write({ type: 'usage', model: run.modelName, input_tokens: usage.inputTokens ?? 0, output_tokens: usage.outputTokens ?? 0 });
  if (limit) throw limit;
  writer.end({ type: 'completed', outcome: 'success', summary: `Wrote the instructions of "${agent.name.trim()}": ${planSteps.length} plan step(s)` });
}

/** Plan steps as RestPlanStep accepts them: sizes cut, tools only from the catalogue, order by position. */
function planStepsOf(agent: WrittenAgent, catalogue: ToolCatalogueEntry[]) {
  const known = new Set(catalogue.map((entry) => entry.name));
  return (agent.plan_steps ?? []).slice(0, 100).map((step, order) => {
    const tools = [...new Set((step.tools ?? []).filter((name) => known.has(name)))];
    const icon = catalogue.find((entry) => entry.name === tools[0])?.icon ?? null;
    return { title: truncateChars(step.title, 500), description: truncateChars(step.description ?? '', 10_000), tools, order, icon };
  });
}
