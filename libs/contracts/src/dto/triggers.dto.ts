import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { EventNames } from '../jobs/events';
import { IsWellFormedText } from './text.validators';

export const TRIGGER_KINDS = ['webhook', 'event'] as const;
export type TriggerKind = (typeof TRIGGER_KINDS)[number];
export const TRIGGER_STATUSES = ['active', 'disabled'] as const;
export type TriggerStatus = (typeof TRIGGER_STATUSES)[number];
/** How an inbound webhook endpoint checks its caller: the unguessable URL alone, Standard Webhooks, or GitHub's signature. */
export const TRIGGER_VERIFICATIONS = ['none', 'standard_webhooks', 'github'] as const;
export type TriggerVerification = (typeof TRIGGER_VERIFICATIONS)[number];
/** The run ends an event trigger can follow. */
export const TRIGGER_SOURCE_EVENTS = [EventNames.RunCompleted, EventNames.RunFailed, EventNames.RunStopped, EventNames.RunPaused] as const;
export type TriggerSourceEvent = (typeof TRIGGER_SOURCE_EVENTS)[number];
export const TRIGGER_NAME_MAX = 200;
export const MESSAGE_TEMPLATE_MAX = 10_000;

const isGiven = (_object: object, value: unknown) => value !== undefined;

/**
 * A signing secret a sender made (Svix-powered senders such as Clerk and Resend make their own): the Standard
 * Webhooks form, `whsec_` and the base64 of 24 to 64 bytes (the byte count is checked by scheduler-service).
 */
export const TRIGGER_SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]+={0,2}$/;
export const TRIGGER_SECRET_MAX = 100;
const SECRET_DESCRIPTION =
  "webhook triggers only: the sender's signing secret (`whsec_` and the base64 of 24 to 64 bytes), for senders that make their own, such as Svix-powered ones; without it the service makes one";
const SECRET_FORM = 'secret must be whsec_ followed by the base64 of 24 to 64 bytes';

export class TriggerDto {
  @ApiProperty({ format: 'uuid' })
  trigger_id!: string;

  @ApiProperty({ format: 'uuid' })
  agent_id!: string;

  @ApiProperty({ enum: TRIGGER_KINDS })
  kind!: TriggerKind;

  @ApiProperty()
  name!: string;

  @ApiProperty({ enum: TRIGGER_STATUSES })
  status!: TriggerStatus;

  @ApiProperty({ type: 'string', nullable: true, description: "Renders the run's user_message (docs/triggers.md); null: the message is empty" })
  message_template!: string | null;

  @ApiPropertyOptional({ enum: TRIGGER_VERIFICATIONS, description: 'webhook triggers only' })
  verification?: TriggerVerification;

  @ApiPropertyOptional({ format: 'uuid', description: 'event triggers only: the agent whose run ends start this one' })
  source_agent_id?: string;

  @ApiPropertyOptional({ type: [String], enum: TRIGGER_SOURCE_EVENTS, description: 'event triggers only' })
  events?: TriggerSourceEvent[];

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When the trigger last started a run' })
  last_triggered_at!: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'Why the last start was refused (for example the chain depth limit); null when none' })
  last_error!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  last_error_at!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

/** Returned when a webhook trigger is created or its credentials rotated: the URL (with its token) and the secret, once. */
export class TriggerCredentialsDto {
  @ApiProperty({ format: 'uri', description: 'POST JSON here to start a run; the last path segment is a secret token: store it now' })
  url!: string;

  @ApiProperty({ description: 'Signing secret for standard_webhooks or github verification; returned only here' })
  secret!: string;
}

export class CreatedTriggerDto extends TriggerDto {
  @ApiPropertyOptional({ format: 'uri', description: 'webhook triggers only; returned only in this response' })
  url?: string;

  @ApiPropertyOptional({ description: 'webhook triggers only; returned only in this response' })
  secret?: string;
}

export class TriggerListResponse {
  @ApiProperty({ type: [TriggerDto] })
  triggers!: TriggerDto[];
}

export class CreateTriggerRequest {
  @ApiProperty({ enum: TRIGGER_KINDS })
  @IsIn(TRIGGER_KINDS)
  kind!: TriggerKind;

  @ApiPropertyOptional({ maxLength: TRIGGER_NAME_MAX, default: '' })
  @IsOptional()
  @IsString()
  @MaxLength(TRIGGER_NAME_MAX)
  @IsWellFormedText()
  name?: string;

  @ApiPropertyOptional({ enum: TRIGGER_STATUSES, default: 'active' })
  @IsOptional()
  @IsIn(TRIGGER_STATUSES)
  status?: TriggerStatus;

  @ApiPropertyOptional({ maxLength: MESSAGE_TEMPLATE_MAX, description: 'Mustache template of the user_message (docs/triggers.md)' })
  @IsOptional()
  @IsString()
  @MaxLength(MESSAGE_TEMPLATE_MAX)
  @IsWellFormedText()
  message_template?: string;

  @ApiPropertyOptional({ enum: TRIGGER_VERIFICATIONS, default: 'none', description: 'webhook triggers only' })
  @IsOptional()
  @IsIn(TRIGGER_VERIFICATIONS)
  verification?: TriggerVerification;

  @ApiPropertyOptional({ maxLength: TRIGGER_SECRET_MAX, pattern: TRIGGER_SECRET_PATTERN.source, description: SECRET_DESCRIPTION })
  @ValidateIf(isGiven)
  @IsString()
  @MaxLength(TRIGGER_SECRET_MAX)
  @Matches(TRIGGER_SECRET_PATTERN, { message: SECRET_FORM })
  secret?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'event triggers: required' })
  @IsOptional()
  @IsUUID()
  source_agent_id?: string;

  @ApiPropertyOptional({ type: [String], enum: TRIGGER_SOURCE_EVENTS, description: 'event triggers: required, at least one' })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(TRIGGER_SOURCE_EVENTS.length)
  @ArrayUnique()
  @IsIn(TRIGGER_SOURCE_EVENTS, { each: true })
  events?: TriggerSourceEvent[];
}

/** Only the fields given change; message_template null clears it. */
export class UpdateTriggerRequest {
  @ApiPropertyOptional({ maxLength: TRIGGER_NAME_MAX })
  @ValidateIf(isGiven)
  @IsString()
  @MaxLength(TRIGGER_NAME_MAX)
  @IsWellFormedText()
  name?: string;

  @ApiPropertyOptional({ enum: TRIGGER_STATUSES })
  @ValidateIf(isGiven)
  @IsIn(TRIGGER_STATUSES)
  status?: TriggerStatus;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: MESSAGE_TEMPLATE_MAX })
  @IsOptional()
  @IsString()
  @MaxLength(MESSAGE_TEMPLATE_MAX)
  @IsWellFormedText()
  message_template?: string | null;

  @ApiPropertyOptional({ enum: TRIGGER_VERIFICATIONS, description: 'webhook triggers only' })
  @ValidateIf(isGiven)
  @IsIn(TRIGGER_VERIFICATIONS)
  verification?: TriggerVerification;

  @ApiPropertyOptional({ maxLength: TRIGGER_SECRET_MAX, pattern: TRIGGER_SECRET_PATTERN.source, description: `${SECRET_DESCRIPTION}; the URL stays` })
  @ValidateIf(isGiven)
  @IsString()
  @MaxLength(TRIGGER_SECRET_MAX)
  @Matches(TRIGGER_SECRET_PATTERN, { message: SECRET_FORM })
  secret?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'event triggers only' })
  @ValidateIf(isGiven)
  @IsUUID()
  source_agent_id?: string;

  @ApiPropertyOptional({ type: [String], enum: TRIGGER_SOURCE_EVENTS, description: 'event triggers only' })
  @ValidateIf(isGiven)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(TRIGGER_SOURCE_EVENTS.length)
  @ArrayUnique()
  @IsIn(TRIGGER_SOURCE_EVENTS, { each: true })
  events?: TriggerSourceEvent[];
}

/** What an inbound call answers: the run it started, or the run a repeated delivery id started first. */
export class InboundHookResponse {
  @ApiProperty({ format: 'uuid' })
  run_id!: string;
}

/** The path token of an inbound URL: 43 base64url characters (32 random bytes). */
export const TRIGGER_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
