import { ReplayInstructions, ReplayRunMessage } from '@aas/contracts';
import { ConflictError } from '@aas/problem-details';
import { RunEntity } from '../database/run.entity';
import { clientIdempotencyKey } from './idempotency-keys';
import { runStart } from './run-start';
import { RunStartRequest } from './run-start-request';

/**
 * `POST …/runs/{run_id}/replay`: a new API run with its origin's input as kept (goal, mode, trigger kind,
 * trigger and its data), keyed like a start. It is the API's run (run_kind api), so no schedule,
 * trigger chain or inbound delivery counts it as theirs; its trigger_kind and dispatch are the origin's.
 * An accepted run passed the deploy check (or skipped it) once: its replay is not refused for it.
 */
export function replayRunStart(
  message: ReplayRunMessage,
  origin: RunEntity,
  pinnedInstructionsVersionId: number | null,
  idempotencyKey: string | null = message.idempotency_key === undefined ? null : clientIdempotencyKey(message.idempotency_key),
): RunStartRequest {
  return runStart(message, {
    idempotencyKey,
    runMode: origin.runMode,
    goal: origin.goal,
    trigger: {
      runKind: 'api',
      triggerKind: origin.triggerKind,
      scheduleAgentId: null,
      ...(origin.triggerId === null ? {} : { triggerId: origin.triggerId }),
      ...(origin.triggerData === null ? {} : { data: { ...origin.triggerData } }),
    },
    skipDeployCheck: true,
    replay: { of: origin.id, pinnedInstructionsVersionId },
  });
}

/**
 * Why the origin cannot be replayed with these instructions (a 409 naming what is gone), or the version
 * the replay is pinned to (null: the agent's current instructions). Whether that version is still kept
 * is agents-service's to say (versionPrunedError).
 */
export function replayVersion(origin: RunEntity, instructions: ReplayInstructions): { pinned: number | null } | { refusal: ConflictError } {
  // A triggered run keeps its trigger's data; without it (purged, or kept by no version before run inputs) its input is gone.
  if (origin.triggerId !== null && origin.triggerData === null) {
    return { refusal: new ConflictError(`The input of run ${origin.id} is gone (its trigger data is no longer kept): it cannot be replayed`) };
  }
  if (instructions === 'current') return { pinned: null };
  if (origin.instructionsVersionId === null) {
    return {
      refusal: new ConflictError(
        `Run ${origin.id} recorded no instructions version (it has not started, or its agent had no instructions): replay it with "instructions": "current"`,
      ),
    };
  }
  return { pinned: Number(origin.instructionsVersionId) };
}

/** The origin's instructions version is no longer kept: the versions-kept limit pruned it. */
export function versionPrunedError(agentId: string, versionId: number): ConflictError {
  return new ConflictError(
    `Instructions version ${versionId} of agent ${agentId} was pruned (QUOTA_INSTRUCTION_VERSIONS_KEPT keeps the newest versions only): replay with "instructions": "current"`,
  );
}
