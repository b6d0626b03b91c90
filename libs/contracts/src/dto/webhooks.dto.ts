import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
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
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];
export const WEBHOOK_URL_MAX = 2048;
/** Why a webhook is disabled: its receiver answered 410 Gone, or its owner disabled it. */
export const WEBHOOK_DISABLED_REASONS = ['receiver_gone', 'disabled_by_owner'] as const;
export type WebhookDisabledReason = (typeof WEBHOOK_DISABLED_REASONS)[number];

const isGiven = (_object: object, value: unknown) => value !== undefined;

/** What the webhook's deliveries have shown of its endpoint (docs/decisions.md, Webhooks: endpoint health). */
export class WebhookHealthDto {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Attempts in a row that did not get a 2xx (0 after a success)' })
  consecutive_failures!: number;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When an attempt last got a 2xx' })
  last_success_at!: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: "The last failed attempt's error, e.g. `HTTP 503 Service Unavailable` or `ECONNREFUSED: …`" })
  last_error!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When that attempt was made' })
  last_error_at!: string | null;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: "While the webhook's circuit breaker is open: when it next lets one attempt through; until then its deliveries wait unattempted",
  })
  circuit_open_until!: string | null;

  @ApiProperty({
    type: 'string',
    enum: WEBHOOK_DISABLED_REASONS,
    nullable: true,
    description: 'While disabled: receiver_gone (it answered 410 Gone) or disabled_by_owner (PATCH status disabled)',
  })
  disabled_reason!: WebhookDisabledReason | null;
}

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

  @ApiProperty({ type: WebhookHealthDto, description: 'An addition to the contract: how its endpoint has been doing' })
  health!: WebhookHealthDto;
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

  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'The first 2,048 characters of the response body (at most 6 KiB of it is read)' })
  response_body!: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    nullable: true,
    description: 'The headers sent, signatures included (never the secret); null for attempts recorded before they were kept',
  })
  request_headers!: Record<string, string> | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    nullable: true,
    description: "The response's headers, names in lower case (at most 32, each value cut to 512 characters); null when there was no answer",
  })
  response_headers!: Record<string, string> | null;
}

export class DeliveryDto {
  @ApiProperty({ format: 'uuid', description: 'Also the x-service-delivery / webhook-id header; the same on every attempt' })
  delivery_id!: string;

  @ApiProperty({ enum: RUN_LIFECYCLE_EVENTS })
  event!: string;

  @ApiProperty({ enum: DELIVERY_STATUSES })
  status!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The body sent' })
  payload!: Record<string, unknown>;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, format: 'date-time' })
  next_attempt_at!: string | null;

  @ApiProperty({ type: [DeliveryAttemptDto] })
  attempts!: DeliveryAttemptDto[];

  @ApiProperty({ description: 'A test event (POST …/test): a sample body, sent once, never retried' })
  test!: boolean;
}

/** POST …/webhooks/{webhook_id}/test */
export class SendTestEventRequest {
  @ApiPropertyOptional({ enum: RUN_LIFECYCLE_EVENTS, description: "The event to send a sample of; the webhook's first event when absent" })
  @IsOptional()
  @IsIn(RUN_LIFECYCLE_EVENTS)
  event?: string;
}

/** POST …/webhooks/{webhook_id}/deliveries/redeliver */
export class RedeliverSinceRequest {
  @ApiProperty({ format: 'date-time', description: 'Failed deliveries made at or after this instant (ISO 8601) are sent again', example: '2026-11-01T00:00:00Z' })
  @IsString()
  @MaxLength(64)
  @IsISO8601({ strict: true })
  since!: string;
}

export class RedeliverSinceResponse {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Failed deliveries made pending again and queued by this request (oldest first)' })
  queued!: number;

  @ApiProperty({ description: 'Failed deliveries since that time are left (past the bound of one request, or of the pacing); ask again to queue the next ones' })
  more!: boolean;
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

  @ApiPropertyOptional({ enum: DELIVERY_STATUSES, description: 'Only the deliveries in this state' })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES)
  filter_status?: DeliveryStatus;
}
