import { RunEntity } from '../database/run.entity';
import { RunReplay } from './run-start-request';
import { RunTrigger } from './run-trigger';

export interface NewRunFields {
  id: string;
  agentId: string;
  agentGeneration: number;
  userId: string;
  userEmail: string;
  runNumber: number;
  runMode: 'build' | 'run';
  goal: string | null;
  trigger: RunTrigger;
  startedAt: Date;
  scheduledFor?: Date | null;
  replay?: RunReplay;
}

/** A run as it is accepted: in progress, nothing executed yet, waiting for admission (admission/). */
export function newRun(fields: NewRunFields): RunEntity {
  return Object.assign(new RunEntity(), {
    id: fields.id,
    agentId: fields.agentId,
    agentGeneration: String(fields.agentGeneration),
    userId: fields.userId,
    userEmail: fields.userEmail,
    runNumber: fields.runNumber,
    runMode: fields.runMode,
    runKind: fields.trigger.runKind,
    triggerKind: fields.trigger.triggerKind ?? fields.trigger.runKind,
    status: 'in_progress',
    outcome: null,
    isFinished: false,
    isPaused: false,
    hasPendingInput: false,
    goal: fields.goal,
    policyModel: null,
    policyType: fields.runMode === 'build' ? 'builder' : 'runner',
    scheduleAgentId: fields.trigger.scheduleAgentId,
    webhookSubscriptionId: fields.trigger.runKind === 'webhook' ? (fields.trigger.triggerId ?? null) : null,
    triggerId: fields.trigger.triggerId ?? null,
    triggerDepth: fields.trigger.depth ?? 0,
    chainRootId: fields.trigger.chainRootId ?? null,
    triggerData: fields.trigger.data ?? null,
    scheduledFor: fields.scheduledFor ?? null,
    wroteInstructions: false,
    summary: null,
    title: null,
    eventCount: '0',
    eventBytes: '0',
    stepCount: '0',
    startedAt: fields.startedAt,
    lastEventAt: fields.startedAt,
    finishedAt: null,
    admittedAt: null,
    awaitingInput: false,
    inputTokens: '0',
    outputTokens: '0',
    modelCalls: 0,
    creditMillionths: null,
    toolCallCount: 0,
    toolIcons: [],
    instructionsVersionId: null,
    replayOf: fields.replay?.of ?? null,
    pinnedInstructionsVersionId: fields.replay?.pinnedInstructionsVersionId == null ? null : String(fields.replay.pinnedInstructionsVersionId),
    sourceRunId: fields.trigger.sourceRunId ?? null,
  } satisfies RunEntity);
}
