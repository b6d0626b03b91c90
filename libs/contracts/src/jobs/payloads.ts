import { IntersectionType, PickType } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { AgentNameInput } from '../dto/agents.dto';
import { PutInstructionsRequest } from '../dto/instructions.dto';
import { RUN_LIFECYCLE_EVENTS, RunLifecycleEventName } from './events';

/*
 * What each job carries, validated by the consumer before it acts (parseJob in libs/platform). Fields
 * added since the first version are optional: a job written by a replica of the previous version
 * during a rolling update is still accepted. Fields a consumer does not know are kept, not refused.
 */

const nullable = (_: object, value: unknown) => value !== null;

/** Job data may carry the id of the API request that caused the job (docs/operations.md, logs). */
export class TracedJob {
  @IsOptional()
  @IsString()
  @MaxLength(200)
  request_id?: string;
}

/**
 * An agent and everything of it is gone; each consumer deletes what it holds of the agent.
 * `generation` is the deleted agent's (see AgentContext): a consumer deletes only what belongs
 * to that generation or an older one, never what an agent created since with the same id holds.
 * Absent in events of an earlier version.
 */
export class AgentDeletedEvent extends TracedJob {
  @IsUUID()
  agent_id!: string;

  @IsUUID()
  user_id!: string;

  @IsISO8601()
  deleted_at!: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  generation?: number;
}

/** A run was admitted for execution (docs/quotas-and-limits.md) and waits for a runs worker. */
export class RunQueuedEvent extends TracedJob {
  @IsUUID()
  run_id!: string;

  /** The BullMQ priority of its job (lower first): 1 + the runs its user had executing. Absent from runs queued before admission existed. */
  @IsOptional()
  @IsInt()
  @Min(1)
  priority?: number;
}

/** The spec's webhook body fields, for webhook delivery and the scheduler. */
export class RunLifecycleEvent extends TracedJob {
  @IsIn(RUN_LIFECYCLE_EVENTS)
  event!: RunLifecycleEventName;

  @IsUUID()
  run_id!: string;

  @IsUUID()
  agent_id!: string;

  @IsUUID()
  user_id!: string;

  @IsString()
  status!: string;

  @IsOptional()
  @IsString()
  outcome?: string;

  @IsOptional()
  @IsISO8601()
  finished_at?: string;

  @IsString()
  run_kind!: string;

  @ValidateIf(nullable)
  @IsString()
  schedule_agent_id!: string | null;

  @IsISO8601()
  timestamp!: string;

  /** Event-trigger hops from the run that started the chain (absent from runs-services before triggers: 0). */
  @IsOptional()
  @IsInt()
  @Min(0)
  trigger_depth?: number;

  /** The run at the root of the run's chain of triggered runs (absent: the run is its own root, as before chains were counted). */
  @IsOptional()
  @IsUUID()
  chain_root_id?: string;

  /** The run's summary when it ended, for event triggers' templates. */
  @IsOptional()
  @ValidateIf(nullable)
  @IsString()
  summary?: string | null;

  /** The generation of the agent the run belongs to; null for runs accepted by an earlier version. */
  @IsOptional()
  @ValidateIf(nullable)
  @IsInt()
  agent_generation?: number | null;

  /**
   * On a run's end: its effects on other services were applied (RecordRunEnds) before the end was
   * published, so a consumer need not apply them again. Absent: apply them (an end published without
   * them, or by an earlier version).
   */
  @IsOptional()
  @IsBoolean()
  effects_applied?: boolean;
}

/** A job about one run of one user's agent. */
export class AgentRunJob extends TracedJob {
  @IsUUID()
  run_id!: string;

  @IsUUID()
  agent_id!: string;

  @IsUUID()
  user_id!: string;
}

/**
 * What agents-service keeps about an agent's runs. `seq` orders the
 * snapshots of one run (its event index) and `run_number` orders runs, so a
 * consumer applies only snapshots newer than the one it holds, in any order.
 */
export class RunProgressEvent extends AgentRunJob {
  @IsInt()
  @Min(1)
  run_number!: number;

  @IsString()
  run_mode!: string;

  @IsInt()
  @Min(0)
  seq!: number;

  @IsString()
  status!: string;

  @IsBoolean()
  is_finished!: boolean;

  @IsBoolean()
  has_pending_input!: boolean;

  @IsOptional()
  @IsString()
  last_chat_message?: string;

  @ValidateIf(nullable)
  @IsString()
  policy_type!: string | null;

  /** The run has written the agent's instructions (a build run's `instructions` line). */
  @IsBoolean()
  wrote_instructions!: boolean;

  /** Set when a build run completed with outcome success: the agent is deployed. */
  @IsOptional()
  @IsISO8601()
  deployed_at?: string;

  @IsISO8601()
  at!: string;

  /** The generation of the agent the run belongs to: a recreated agent is not changed by the old one's runs. */
  @IsOptional()
  @ValidateIf(nullable)
  @IsInt()
  agent_generation?: number | null;
}

/** Instructions a run wrote (the runtime's `instructions` line), checked as agents-service checks them. */
export class RunInstructions extends PickType(PutInstructionsRequest, ['content', 'plan_steps'] as const) {}

/**
 * A run wrote its agent's instructions (the runtime's `instructions` line, docs/runtime-protocol.md):
 * agents-service makes them the agent's current instructions, unless the agent is gone or is another
 * generation. Recorded in the transaction that records the line, so it is sent if and only if the line
 * is recorded; `seq` is the line's event index.
 */
export class RunInstructionsEvent extends IntersectionType(AgentRunJob, RunInstructions) {
  @IsInt()
  @Min(0)
  seq!: number;

  /** The generation of the agent the run belongs to (null: a run accepted before generations existed). */
  @ValidateIf(nullable)
  @IsInt()
  agent_generation!: number | null;
}

/**
 * A build run named its agent (the runtime's `agent_name` line, docs/runtime-protocol.md): agents-service
 * makes it the agent's `agent_name`, unless the agent is gone or is another generation. Recorded in the
 * transaction that records the line; `seq` is the line's event index.
 */
export class RunAgentNameEvent extends IntersectionType(AgentRunJob, AgentNameInput) {
  @IsInt()
  @Min(0)
  seq!: number;

  @ValidateIf(nullable)
  @IsInt()
  agent_generation!: number | null;
}

/** A schedule came due: start one run for this fire time. */
export class ScheduleFireEvent extends TracedJob {
  @IsUUID()
  agent_id!: string;

  @IsUUID()
  user_id!: string;

  @IsISO8601()
  fire_time!: string;

  /** The generation of the agent whose schedule fired; null for schedules set by an earlier version. */
  @IsOptional()
  @ValidateIf(nullable)
  @IsInt()
  agent_generation?: number | null;
}

/**
 * A webhook-deliveries job: the delivery row holds everything else. The job id is the delivery id,
 * or `<delivery id>-redelivery-<time>` for a redelivery asked for while an attempt is in flight.
 */
export class DeliveryJobData extends TracedJob {
  @IsUUID()
  delivery_id!: string;
}

/** A periodic upkeep job: its name says what to do; it carries nothing. */
export class MaintenanceJob {}

/** The most runs one runs.purged event names: a purge batch (RUN_PURGE_BATCH_SIZE is at most this). */
export const RUNS_PURGED_MAX = 1000;

/**
 * Finished runs were deleted (retention, or a delete by filter: docs/retention.md); each consumer deletes
 * what it keeps of them (webhook-delivery: their deliveries and attempts). Idempotent: a run deleted twice is gone.
 */
export class RunsPurgedEvent extends TracedJob {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(RUNS_PURGED_MAX)
  @IsUUID('all', { each: true })
  run_ids!: string[];
}

/**
 * The next chunk of a bulk action is due: `chunk` is the action's chunk counter when the event was
 * recorded, so a repeated or stale job (the counter moved on) does nothing.
 */
export class BulkActionChunkEvent extends TracedJob {
  @IsUUID()
  bulk_action_id!: string;

  @IsInt()
  @Min(1)
  chunk!: number;
}
