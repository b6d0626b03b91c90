import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, ValidateNested } from 'class-validator';
import { RunEventItem } from '../dto/runs.dto';
import { RunScopedMessage } from './user-scoped.message';

/**
 * Run events pushed to the gateways' event streams (docs/architecture.md, "Live event streams"):
 * runs-service publishes each event on its run's Redis pub/sub channel once the event's
 * transaction has committed. Pub/sub may lose a message (a gateway's connection drops), so a
 * stream relies on the indices: a gap is read back from runs-service, never guessed.
 */
export const RunEventPushKeys = {
  channel: (runId: string) => ['runs', 'events', runId],
} as const;

/** An event larger than this travels without its body; the gateway reads it from runs-service. */
export const RUN_EVENT_PUSH_MAX_BYTES = 64 * 1024;

export type RunEventPush =
  /** Event `index` was recorded (`item` absent when larger than RUN_EVENT_PUSH_MAX_BYTES); `finished`: it ended the run. */
  | { index: number; item?: RunEventItem; finished: boolean }
  /** The run was deleted (with its agent, or alone): its streams end. */
  | { gone: true };

/** Most runs in one RunStreamHeads request. */
export const RUN_STREAM_HEADS_MAX = 500;

/** One run of an open stream, with the caller it was opened for. */
export class RunStreamRef extends RunScopedMessage {}

export class RunStreamHeadsMessage {
  @IsArray()
  @ArrayMaxSize(RUN_STREAM_HEADS_MAX)
  @ValidateNested({ each: true })
  @Type(() => RunStreamRef)
  runs!: RunStreamRef[];
}

/** Where a run stands; a run that is gone for its caller (deleted, its agent deleted) is left out. */
export interface RunStreamHead {
  run_id: string;
  event_count: number;
  is_finished: boolean;
}

export interface RunStreamHeadsResponse {
  runs: RunStreamHead[];
}
