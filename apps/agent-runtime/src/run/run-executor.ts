import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { RunDispatch } from '@aas/contracts';
import { createGuardedDispatcher } from '@aas/platform';
import type { LanguageModel } from 'ai';
import { Agent } from 'undici';
import { RuntimeEnv } from '../config/runtime.env';
import { LineWriter } from '../lines/line-writer';
import { languageModelFrom } from '../model/language-model';
import { sdkWarningsOnce } from '../model/sdk-warnings';
import { McpServers } from '../tools/mcp-servers';
import { ToolCatalogueService } from '../tools/tool-catalogue.service';
import { executeBuildRun } from './build-run';
import { RunBudget } from './run-budget';
import { RunContext } from './run-context';
import { RunCancelled, RunStopped, RunSuspended, deadlineStop } from './run-stop';
import { executeToolRun } from './tool-run';

/** Runs one dispatch to its end: a terminal line, or nothing when the connection was closed (a cancel). */
@Injectable()
export class RunExecutor implements OnApplicationShutdown {
  private readonly logger = new Logger(RunExecutor.name);
  private readonly model: LanguageModel;
  private readonly dispatcher: Agent;

  constructor(
    private readonly env: RuntimeEnv,
    private readonly mcp: McpServers,
    private readonly catalogue: ToolCatalogueService,
  ) {
    this.model = languageModelFrom(this.env);
    globalThis.AI_SDK_LOG_WARNINGS = sdkWarningsOnce((message) => this.logger.warn(message));
    this.dispatcher = createGuardedDispatcher({
      allowPrivateNetworks: this.env.HTTP_TOOL_ALLOW_PRIVATE_NETWORKS,
      connectTimeoutMs: Math.min(this.env.HTTP_TOOL_TIMEOUT_MS, 10_000),
      subject: 'http_request',
    });
  }

  async execute(dispatch: RunDispatch, writer: LineWriter, controller: AbortController): Promise<void> {
    const run: RunContext = {
      dispatch,
      writer,
      model: this.model,
      modelName: this.env.MODEL_NAME,
      maxRetries: this.env.MODEL_RETRIES,
      maxOutputTokens: this.env.MODEL_MAX_OUTPUT_TOKENS,
      budget: new RunBudget(this.env.AGENT_MAX_STEPS, this.env.AGENT_MAX_TOKENS),
      controller,
      catalogue: this.catalogue.entries(),
      tools: {
        mcp: this.mcp.tools,
        outputMaxBytes: this.env.TOOL_OUTPUT_MAX_BYTES,
        http: {
          dispatcher: this.dispatcher,
          allowedHosts: this.env.HTTP_TOOL_ALLOWED_HOSTS?.map((host) => host.toLowerCase()),
          timeoutMs: this.env.HTTP_TOOL_TIMEOUT_MS,
          maxBytes: this.env.HTTP_TOOL_MAX_BYTES,
        },
      },
    };
    const deadline = setTimeout(() => controller.abort(deadlineStop(dispatch.deadline_at)), timeBeforeDeadline(dispatch.deadline_at));
    try {
      await (dispatch.run_mode === 'build' ? executeBuildRun(run) : executeToolRun(run));
    } catch (error) {
      this.end(writer, controller, error);
    } finally {
      clearTimeout(deadline);
    }
  }

  private end(writer: LineWriter, controller: AbortController, error: unknown): void {
    // A stop reason wins over the error it caused (an aborted model call reports an AbortError).
    const reason: unknown = controller.signal.aborted ? controller.signal.reason : error;
    if (reason instanceof RunCancelled) return;
    // Its question is the last line: runs-service sends the answer in a continuation.
    if (reason instanceof RunSuspended) return;
    if (reason instanceof RunStopped) return writer.end({ type: 'failed', error: reason.message });
    this.logger.warn({ err: reason }, 'a run failed');
    writer.end({ type: 'failed', error: `the model failed: ${reason instanceof Error ? reason.message : String(reason)}` });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.dispatcher.close();
  }
}

/**
 * How long until the run is stopped for its deadline: a moment before deadline_at (a tenth of the time
 * left, at most 1 s), because runs-service gives up at deadline_at and its own reason would be recorded instead.
 */
export function timeBeforeDeadline(deadlineAt: string, now = Date.now()): number {
  const left = Math.max(0, Date.parse(deadlineAt) - now);
  return left - Math.min(1000, left / 10);
}
