import { IntersectionType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { ProblemDetailDto } from '../dto/problem-detail.dto';
import { CreateTriggerRequest, TRIGGER_KINDS, TriggerDto, TriggerKind, UpdateTriggerRequest } from '../dto/triggers.dto';
import { USER_MESSAGE_MAX_LENGTH } from '../dto/runs.dto';
import { IsWellFormedText } from '../dto/text.validators';
import { RUN_START_BATCH_MAX } from './runs.messages';
import { AgentScopedMessage } from './user-scoped.message';

export class TriggerScopedMessage extends AgentScopedMessage {
  @IsString()
  @MaxLength(256)
  trigger_id!: string;
}

export class AgentTriggersMessage extends AgentScopedMessage {}
export class CreateTriggerMessage extends IntersectionType(CreateTriggerRequest, AgentScopedMessage) {}
export class UpdateTriggerMessage extends IntersectionType(UpdateTriggerRequest, TriggerScopedMessage) {}
export class TriggerRefMessage extends TriggerScopedMessage {}

/** scheduler-service → gateway: a trigger as created or rotated; the gateway turns the token into the public URL. */
export interface TriggerWithCredentials {
  trigger: TriggerDto;
  /** webhook triggers only, and only in the answers to create and rotate. */
  token?: string;
  secret?: string;
}

/** gateway → scheduler-service: one call to an inbound webhook endpoint, as received. */
export class InboundHookMessage {
  @IsString()
  @MaxLength(256)
  trigger_id!: string;

  @IsString()
  @MaxLength(256)
  token!: string;

  /** The raw body: signatures are computed over its exact bytes. */
  @IsString()
  body!: string;

  /** Lower-cased header names; the ones never passed on (credentials, cookies) are already left out. */
  @IsObject()
  headers!: Record<string, string>;
}

/** One run a trigger starts; runs-service keys it `trigger:<trigger_id>:<delivery_key>`. */
export class TriggeredRunStart {
  @IsUUID()
  user_id!: string;

  @IsUUID()
  agent_id!: string;

  @IsUUID()
  trigger_id!: string;

  @IsIn(TRIGGER_KINDS)
  trigger_kind!: TriggerKind;

  /** The generation of the agent the trigger was made for: a new agent that took its id is not started. */
  @IsInt()
  @Min(0)
  agent_generation!: number;

  /** What makes the start unique for its trigger: the delivery id of an inbound call, or the source run of an event. */
  @IsString()
  @MaxLength(300)
  delivery_key!: string;

  @IsOptional()
  @IsString()
  @MaxLength(USER_MESSAGE_MAX_LENGTH)
  @IsWellFormedText()
  user_message?: string;

  /** Hops from the run that started the chain (0 for an inbound call that starts its own). */
  @IsInt()
  @Min(0)
  @Max(1000)
  depth!: number;

  /**
   * The run at the root of the chain this start continues (an event trigger's, or an inbound call
   * carrying this installation's chain header): runs-service counts it against TRIGGER_CHAIN_MAX_RUNS.
   * Absent: the run starts a chain of its own.
   */
  @IsOptional()
  @IsUUID()
  chain_root_id?: string;

  /** What the runtime gets as the dispatch's `trigger` (payload, headers, source run); or `data_json`. */
  @IsOptional()
  @IsObject()
  data?: Record<string, unknown>;

  /**
   * `data` as JSON text, as inbound calls send it: a payload of any shape then costs runs-service one
   * JSON.parse, not a walk by the validation pipe (whose member limits a payload need not keep).
   */
  @IsOptional()
  @IsString()
  data_json?: string;
}

export class StartTriggeredRunsMessage {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(RUN_START_BATCH_MAX)
  @ValidateNested({ each: true })
  @Type(() => TriggeredRunStart)
  starts!: TriggeredRunStart[];
}

/** One outcome per start, in order. */
export interface StartTriggeredRunsResponse {
  outcomes: Array<{ run_id: string; created: boolean } | { refused: ProblemDetailDto }>;
}
