import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsOptional, ValidateNested } from 'class-validator';
import { RunAgentNameEvent, RunInstructionsEvent, RunLifecycleEvent, RunProgressEvent } from '../jobs/payloads';

/** Most run ends in one RecordRunEnds request. */
export const RUN_ENDS_BATCH_MAX = 100;

/**
 * One run's end as the services it changes need it: the lifecycle event (scheduler-service), the final
 * progress snapshot (agents-service) and, for a run that wrote instructions (or named its agent), the last
 * ones it wrote, so that they are the agent's current ones once the run reads finished.
 */
export class RunEndEffects {
  @ValidateNested()
  @Type(() => RunLifecycleEvent)
  lifecycle!: RunLifecycleEvent;

  @ValidateNested()
  @Type(() => RunProgressEvent)
  progress!: RunProgressEvent;

  @IsOptional()
  @ValidateNested()
  @Type(() => RunInstructionsEvent)
  instructions?: RunInstructionsEvent;

  /** A build run that named its agent: the last name it sent, so that the agent has it once the run reads finished. */
  @IsOptional()
  @ValidateNested()
  @Type(() => RunAgentNameEvent)
  agent_name?: RunAgentNameEvent;
}

/**
 * AgentsPatterns.RecordRunEnds and SchedulerPatterns.RecordRunEnds: runs-service applies the effects of
 * these ends before it makes them visible. Applying one twice changes nothing; a refusal of one end
 * (its agent gone) is no error. The answer comes once every end's effects are committed.
 */
export class RecordRunEndsMessage {
  @IsArray()
  @ArrayMaxSize(RUN_ENDS_BATCH_MAX)
  @ValidateNested({ each: true })
  @Type(() => RunEndEffects)
  ends!: RunEndEffects[];
}

/** How many ends were applied (all of them: a failure fails the request). */
export interface RecordRunEndsResponse {
  applied: number;
}
