import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { RUN_LIFECYCLE_EVENTS } from '../jobs/events';
import { IsWellFormedText } from './text.validators';

export const WEBHOOK_STATUSES = ['active', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];
export const WEBHOOK_URL_MAX = 2048;

const isGiven = (_object: object, value: unknown) => value !== undefined;

export class WebhookDto {
  @ApiProperty({ format: 'uuid' })
  webhook_id!: string;

  @ApiProperty({ format: 'uuid' })
  agent_id!: string;

  @ApiProperty()
  user_id!: string;

  @ApiProperty({ format: 'uri' })
  url!: string;

  @ApiProperty({ type: [String], enum: RUN_LIFECYCLE_EVENTS })
  events!: string[];

  @ApiProperty({ enum: WEBHOOK_STATUSES })
  status!: WebhookStatus;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

/** The creation response: the signing secret, once; no agent_id, user_id or updated_at. */
export class CreatedWebhookDto {
  @ApiProperty({ format: 'uuid' })
  webhook_id!: string;

  @ApiProperty({ format: 'uri' })
  url!: string;

  @ApiProperty({ type: [String], enum: RUN_LIFECYCLE_EVENTS })
  events!: string[];

  @ApiProperty({ description: 'Returned only in this response; store it now' })
  signing_secret!: string;

  @ApiProperty({ enum: WEBHOOK_STATUSES })
  status!: WebhookStatus;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class WebhookListResponse {
  @ApiProperty({ type: [WebhookDto] })
  webhooks!: WebhookDto[];
}

export class CreateWebhookRequest {
  @ApiProperty({ format: 'uri', description: 'Absolute http(s) URL without credentials', maxLength: WEBHOOK_URL_MAX })
  @IsString()
  @MaxLength(WEBHOOK_URL_MAX)
  @IsWellFormedText()
  url!: string;

  @ApiProperty({ type: [String], enum: RUN_LIFECYCLE_EVENTS, minItems: 1 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(RUN_LIFECYCLE_EVENTS.length)
  @ArrayUnique()
  @IsIn(RUN_LIFECYCLE_EVENTS, { each: true })
  events!: string[];
}

/** PATCH: a field that is absent stays as it is; `null` is not a value of any of them (a 400, not a NOT NULL violation). */
export class UpdateWebhookRequest {
  @ApiPropertyOptional({ format: 'uri', maxLength: WEBHOOK_URL_MAX })
  @ValidateIf(isGiven)
  @IsString()
  @MaxLength(WEBHOOK_URL_MAX)
  @IsWellFormedText()
  url?: string;

  @ApiPropertyOptional({ type: [String], enum: RUN_LIFECYCLE_EVENTS, minItems: 1 })
  @ValidateIf(isGiven)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(RUN_LIFECYCLE_EVENTS.length)
  @ArrayUnique()
  @IsIn(RUN_LIFECYCLE_EVENTS, { each: true })
  events?: string[];

  @ApiPropertyOptional({ enum: WEBHOOK_STATUSES })
  @ValidateIf(isGiven)
  @IsIn(WEBHOOK_STATUSES)
  status?: WebhookStatus;
}

export class DeliveryAttemptDto {
  @ApiProperty({ type: 'integer' })
  attempt!: number;

  @ApiProperty({ format: 'date-time' })
  started_at!: string;

  @ApiProperty({ type: 'integer' })
  duration_ms!: number;

  @ApiPropertyOptional({ type: 'integer', nullable: true })
  status_code!: number | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  error!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'The first 2 KiB of the response body' })
  response_body!: string | null;
}

export class DeliveryDto {
  @ApiProperty({ format: 'uuid', description: 'Also the x-service-delivery / webhook-id header; the same on every attempt' })
  delivery_id!: string;

  @ApiProperty({ enum: RUN_LIFECYCLE_EVENTS })
  event!: string;

  @ApiProperty({ enum: ['pending', 'succeeded', 'failed', 'cancelled'] })
  status!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The body sent' })
  payload!: Record<string, unknown>;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, format: 'date-time' })
  next_attempt_at!: string | null;

  @ApiProperty({ type: [DeliveryAttemptDto] })
  attempts!: DeliveryAttemptDto[];
}

export class DeliveryListResponse {
  @ApiProperty({ type: [DeliveryDto] })
  deliveries!: DeliveryDto[];

  @ApiProperty({ type: 'integer' })
  total!: number;
}

export class ListDeliveriesQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  page?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 200, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(200)
  page_size?: number;
}
