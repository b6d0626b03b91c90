import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AgentContext, AgentsPatterns, RUNTIME_PROTOCOL_VERSION, RunDispatch, RuntimeLine } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { RunsEnv } from '../config/runs.env';
import { ToolCatalogueSource } from '../tools/tool-catalogue';
import { CreditPrice, parseCreditPrices } from '../usage/credit-prices';
import { RunEntity } from '../database/run.entity';
import { AGENT_RUNTIME, AgentRuntime, RuntimeFailure } from './agent-runtime';
import { RunRecordStore } from '../lifecycle/run-record.store';
import { RunLifecycle } from '../lifecycle/run-lifecycle.service';
import { fail, pause, start } from '../lifecycle/run-transition';
import { RunSuspension } from '../input-requests/run-suspension';
import { isSuspendingLine } from '../input-requests/suspending-line';
import { LineContext, transitionFor } from './line-transition';

const TIMED_OUT = 'timeout';
const SHUT_DOWN = 'shutdown';
const NO_ICONS = (): null => null;
/** A replay's pinned instructions version that agents-service no longer keeps. */
const PRUNED = Symbol('pruned');

/**
 * Executes one run through the agent runtime protocol, from event 0 to a final state. agents-service is
 * only read here (the agent's context, by request); what a run changes of its agent (its instructions,
 * its summary) goes by event, recorded with the line (RunRecorder).
 */
@Injectable()
export class RunExecutor {
  private readonly logger = new Logger(RunExecutor.name);
  private readonly prices: CreditPrice[];

  constructor(
    private readonly runs: RunRecordStore,
    @Inject(AGENT_RUNTIME) private readonly runtime: AgentRuntime,
    private readonly lifecycle: RunLifecycle,
    private readonly services: ServiceClient,
    private readonly config: ConfigService<RunsEnv, true>,
    private readonly tools: ToolCatalogueSource,
    private readonly suspension: RunSuspension,
  ) {
    // Validated at start (RunsEnv): a table that does not parse here is a bug, not a setting.
    const prices = parseCreditPrices(config.get('CREDIT_PRICES', { infer: true }));
    if (typeof prices === 'string') throw new Error(prices);
    this.prices = prices;
  }

  async execute(runId: string): Promise<void> {
    const run = await this.runs.find(runId);
    if (!run || run.isFinished) return;
    if (Number(run.eventCount) > 0) return this.resume(run);
    const context = await this.agentContext(run, 'its agent was deleted before the run started');
    if (!context) return;
    const instructions = await this.instructionsOf(run, context);
    if (instructions === PRUNED) {
      const pinned = run.pinnedInstructionsVersionId;
      await this.abandon(run.id, `its instructions version ${pinned} was pruned before the run started (QUOTA_INSTRUCTION_VERSIONS_KEPT)`);
      return;
    }
    // An agents-service of an earlier version names no version: recorded as unknown (null).
    const version = instructions?.version_id ?? null;
    if ((await this.lifecycle.record(run.id, (state) => start(state, version))) === 'ignored') return;
    const deadline = new Date(Date.now() + this.config.get('RUN_TIMEOUT_MS', { infer: true }));
    await this.drive(run, dispatchFor(run, instructions, deadline));
  }

  /** The agent's current instructions, or (a replay of its origin's version) the pinned version while it is kept. */
  private async instructionsOf(run: RunEntity, context: AgentContext): Promise<AgentContext['instructions'] | typeof PRUNED> {
    if (run.pinnedInstructionsVersionId === null) return context.instructions;
    const { instructions } = await this.services.request(AgentsPatterns.GetInstructionsVersion, {
      user_id: run.userId,
      agent_id: run.agentId,
      version_id: Number(run.pinnedInstructionsVersionId),
    });
    return instructions ?? PRUNED;
  }

  /**
   * A run that had started: its continuation when an answer readmitted it (docs/input-requests.md), a new
   * dispatch made once per answer; otherwise its worker died or lost its database mid-run, and the
   * runtime's side effects cannot be replayed safely, so it ends in error.
   */
  private async resume(run: RunEntity): Promise<void> {
    // Read before the claim: a failure here retries the job with the continuation still unclaimed.
    const context = await this.agentContext(run, 'its agent was deleted while the run waited');
    if (!context) return;
    const instructions = await this.instructionsOf(run, context);
    if (instructions === PRUNED) {
      const pinned = run.pinnedInstructionsVersionId;
      await this.abandon(run.id, `its instructions version ${pinned} was pruned while the run waited (QUOTA_INSTRUCTION_VERSIONS_KEPT)`);
      return;
    }
    const claimed = await this.suspension.claimContinuation(run.id);
    if (!claimed) {
      await this.abandon(run.id, 'execution was interrupted (its worker stopped or lost its database connection); not retried');
      return;
    }
    const deadline = new Date(Date.now() + claimed.timeLeftMs);
    await this.drive(run, { ...dispatchFor(run, instructions, deadline), continuation: claimed.continuation });
  }

  /** What the dispatch needs of the agent; undefined (and the run ended) when its agent was deleted and its id taken. */
  private async agentContext(run: RunEntity, deletedReason: string): Promise<AgentContext | undefined> {
    const context = await this.services.request(AgentsPatterns.GetAgentForRun, { user_id: run.userId, agent_id: run.agentId });
    // The agent was deleted and a new one took its id: the run is not executed with the new one's instructions.
    if (run.agentGeneration !== null && Number(run.agentGeneration) !== context.generation) {
      await this.abandon(run.id, deletedReason);
      return undefined;
    }
    return context;
  }

  /**
   * Shutdown past SHUTDOWN_DRAIN_MS: the runs still executing here end in error.
   * A runtime's side effects cannot be replayed, so no other replica may resume them.
   */
  abortAll(): void {
    this.lifecycle.abortAll(SHUT_DOWN);
  }

  /** Ends a run that will not be executed. */
  async abandon(runId: string, reason: string): Promise<void> {
    await this.lifecycle.record(runId, (state) => fail(state, reason));
  }

  private async drive(run: RunEntity, dispatch: RunDispatch): Promise<void> {
    const controller = new AbortController();
    const unregister = this.lifecycle.watch(run.id, controller);
    // What is left of RUN_TIMEOUT_MS: time a run spent suspended on an input request does not count.
    const deadline = Date.parse(dispatch.deadline_at);
    const timeout = setTimeout(() => controller.abort(TIMED_OUT), Math.max(0, deadline - Date.now()));
    const pauseTimer = new PauseTimer(this.config.get('RUN_PAUSE_AFTER_MS', { infer: true }), () => {
      this.lifecycle.record(run.id, (state) => pause(state)).catch((error: Error) => {
        // The run stays waiting; it will pause or end with its next line, timeout or cancel.
        this.logger.warn({ run_id: run.id, err: error }, 'could not record the pause');
      });
    });
    try {
      // Asked at the run's first tool call only: a version 1 runtime, which calls no tools, is never sent GET /tools.
      let icons: Promise<LineContext['iconOf']> | undefined;
      for await (const line of this.runtime.execute(dispatch, controller.signal)) {
        pauseTimer.onLine(line);
        // Version 3: the runtime ends its stream after asking; the run holds no worker while it waits.
        if (isSuspendingLine(line)) return await this.suspension.suspend(run, line, deadline);
        const context: LineContext = { prices: this.prices, iconOf: line.type === 'tool_call' ? await (icons ??= this.tools.icons()) : NO_ICONS };
        if ((await this.lifecycle.record(run.id, (state) => transitionFor(state, line, context))) !== 'recorded') return;
      }
      await this.lifecycle.record(run.id, (state) => fail(state, 'the runtime closed the stream without a terminal line'));
    } catch (error) {
      await this.recordFailure(run.id, controller.signal, error);
    } finally {
      pauseTimer.stop();
      clearTimeout(timeout);
      unregister();
      controller.abort('done');
    }
  }

  private async recordFailure(runId: string, signal: AbortSignal, error: unknown): Promise<void> {
    if (signal.aborted && signal.reason === 'cancelled') return; // the cancel already finished the run
    const reason =
      signal.aborted && signal.reason === TIMED_OUT
        ? `the run exceeded RUN_TIMEOUT_MS (${this.config.get('RUN_TIMEOUT_MS', { infer: true })} ms)`
        : signal.aborted && signal.reason === SHUT_DOWN
          ? 'runs-service shut down before the run finished (SHUTDOWN_DRAIN_MS passed); not retried'
          : error instanceof RuntimeFailure
          ? error.message
          : `the run failed: ${(error as Error).message}`;
    if (!(error instanceof RuntimeFailure)) this.logger.warn({ run_id: runId, err: error }, 'run execution failed');
    await this.lifecycle.record(runId, (state) => fail(state, reason));
  }
}

function dispatchFor(run: RunEntity, instructions: AgentContext['instructions'], deadline: Date): RunDispatch {
  const dispatch: RunDispatch = {
    protocol_version: RUNTIME_PROTOCOL_VERSION,
    run_id: run.id,
    agent_id: run.agentId,
    run_number: run.runNumber,
    run_mode: run.runMode,
    user_message: run.goal,
    trigger_kind: run.triggerKind,
    instructions: instructions && {
      content: instructions.content,
      // An agents-service of an earlier version answers null for instructions without steps.
      plan_steps: Array.isArray(instructions.plan_steps) ? instructions.plan_steps : [],
    },
    scheduled_for: run.scheduledFor?.toISOString() ?? null,
    deadline_at: deadline.toISOString(),
  };
  if (run.triggerId) {
    dispatch.trigger = { ...(run.triggerData ?? {}), kind: run.triggerKind, trigger_id: run.triggerId, depth: run.triggerDepth };
  }
  return dispatch;
}

/** docs/runtime-protocol.md: a run waiting for input longer than RUN_PAUSE_AFTER_MS becomes paused. */
class PauseTimer {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly afterMs: number,
    private readonly onPause: () => void,
  ) {}

  onLine(line: RuntimeLine): void {
    this.stop();
    if (line.type === 'waiting_for_input') this.timer = setTimeout(this.onPause, this.afterMs);
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
