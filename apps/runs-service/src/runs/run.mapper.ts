import { RunDto, RunEventItem, RunListResponse, RunStatus, RunSummaryDto, RunUsage } from '@aas/contracts';
import type { RunListPage } from '../run-list/run-list';
import { creditsOf } from '../usage/credit-prices';
import { RunEventEntity } from '../database/run-event.entity';
import { RunEntity } from '../database/run.entity';

export function toRunDto(run: RunEntity): RunDto {
  const dto: RunDto = {
    run_id: run.id,
    agent_id: run.agentId,
    run_number: run.runNumber,
    started_at: run.startedAt.toISOString(),
    last_event_at: run.lastEventAt.toISOString(),
    event_count: Number(run.eventCount),
    event_bytes: Number(run.eventBytes),
    step_count: Number(run.stepCount),
    is_finished: run.isFinished,
    is_paused: run.isPaused,
    status: run.status as RunStatus,
    goal: run.goal,
    policy_model: run.policyModel,
    policy_type: run.policyType,
    run_kind: run.runKind,
    schedule_agent_id: run.scheduleAgentId,
    webhook_subscription_id: run.webhookSubscriptionId,
    trigger_id: run.triggerId,
    user_id: run.userId,
    user_email: run.userEmail,
    wrote_instructions: run.wroteInstructions,
    usage: usageOf(run),
    credits_consumed: creditsConsumed(run),
    instructions_version_id: run.instructionsVersionId === null ? null : Number(run.instructionsVersionId),
    trigger_data: run.triggerData && { ...run.triggerData },
    scheduled_for: run.scheduledFor?.toISOString() ?? null,
    replay_of: run.replayOf,
    source_run_id: run.sourceRunId,
  };
  if (run.finishedAt) dto.finished_at = run.finishedAt.toISOString();
  return dto;
}

export function toRunSummary(run: RunEntity): RunSummaryDto {
  return {
    run_id: run.id,
    run_number: run.runNumber,
    started_at: run.startedAt.toISOString(),
    is_finished: run.isFinished,
    is_paused: run.isPaused,
    tool_icons: run.toolIcons,
    total_action_count: actionCount(run),
    attention_reason: run.hasPendingInput ? 'waiting_for_input' : null,
    outcome: run.outcome,
    run_phase: run.status,
    run_kind: run.runKind,
    trigger_kind: run.triggerKind,
    summary: run.summary,
    title: run.title,
    policy_model: run.policyModel,
    policy_type: run.policyType,
    schedule_agent_id: run.scheduleAgentId,
    webhook_subscription_id: run.webhookSubscriptionId,
    trigger_id: run.triggerId,
    credits_consumed: creditsConsumed(run),
    wrote_instructions: run.wroteInstructions,
    usage: usageOf(run),
  };
}

function usageOf(run: RunEntity): RunUsage {
  return { input_tokens: Number(run.inputTokens), output_tokens: Number(run.outputTokens), model_calls: run.modelCalls };
}

/** null until the runtime reports usage (docs/contract.md). */
function creditsConsumed(run: RunEntity): number | null {
  return run.creditMillionths === null ? null : creditsOf(BigInt(run.creditMillionths));
}

/** Tool calls; a run whose runtime reports none (version 1, the built-in runtime) counts its steps, as before. */
function actionCount(run: RunEntity): number {
  return run.toolCallCount > 0 ? run.toolCallCount : Number(run.stepCount);
}

export function toRunEventItem(event: RunEventEntity): RunEventItem {
  return { event_index: Number(event.eventIndex), recorded_at: event.recordedAt.toISOString(), event: event.event };
}

/** A page of the run list as the API answers it (GET …/runs and GET /v1/runs). */
export function toRunListResponse({ runs, total, page, pageSize }: RunListPage): RunListResponse {
  return { runs: runs.map(toRunDto), total_runs: total, page, page_size: pageSize, all_run_summaries: runs.map(toRunSummary) };
}
