import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional } from 'class-validator';
import { INPUT_TIMEOUT_ACTIONS, InputTimeoutAction } from '../runtime/runtime-protocol';

/** docs/input-requests.md: what an input request is at each point of its life. */
export const INPUT_REQUEST_STATUSES = ['pending', 'answered', 'timed_out', 'void'] as const;
export type InputRequestStatus = (typeof INPUT_REQUEST_STATUSES)[number];

/** Largest answer, as UTF-8 JSON (docs/quotas-and-limits.md). */
export const INPUT_ANSWER_MAX_BYTES = 65_536;
/** Most input requests one run lists (GET …/runs/{run_id}/input-requests), oldest first. */
export const INPUT_REQUESTS_PER_RUN_LISTED = 100;
/** Most input requests GET /v1/input-requests lists, oldest first. */
export const INPUT_REQUESTS_LISTED = 100;

export class InputTimeoutFallbackDto {
  @ApiProperty({ enum: INPUT_TIMEOUT_ACTIONS })
  action!: InputTimeoutAction;

  @ApiPropertyOptional({ description: '`default` only: the answer given at the timeout' })
  answer?: unknown;
}

export class InputAnswererDto {
  @ApiProperty({ enum: ['user', 'timeout'] })
  kind!: 'user' | 'timeout';

  @ApiPropertyOptional({ type: 'string', format: 'uuid', description: '`user`: who answered' })
  user_id?: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, description: '`user`: the API key used; null for a console session' })
  api_key_id?: string | null;
}

/** A question a run asked a person (an addition to the contract, docs/input-requests.md). */
export class InputRequestDto {
  @ApiProperty({ format: 'uuid' })
  request_id!: string;

  @ApiProperty({ format: 'uuid' })
  run_id!: string;

  @ApiProperty({ format: 'uuid' })
  agent_id!: string;

  @ApiProperty({ enum: INPUT_REQUEST_STATUSES })
  status!: InputRequestStatus;

  @ApiProperty({ description: "The runtime's id of the question (the line's input_id)" })
  input_id!: string;

  @ApiProperty()
  prompt!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'JSON Schema the answer must match' })
  schema!: Record<string, unknown>;

  @ApiPropertyOptional({ type: [String], nullable: true, description: 'When the answer is one of these strings' })
  choices!: string[] | null;

  @ApiProperty({ type: [String], description: 'Addresses answer links may be sent to' })
  notify!: string[];

  @ApiProperty({ type: InputTimeoutFallbackDto })
  on_timeout!: InputTimeoutFallbackDto;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  timeout_at!: string;

  @ApiPropertyOptional({ nullable: true, description: 'The answer (any JSON); null until answered' })
  answer!: unknown;

  @ApiPropertyOptional({ type: 'string', format: 'date-time', nullable: true })
  answered_at!: string | null;

  @ApiPropertyOptional({ type: InputAnswererDto, nullable: true })
  answered_by!: InputAnswererDto | null;
}

export class InputRequestResponse {
  @ApiProperty({ type: InputRequestDto })
  input_request!: InputRequestDto;
}

export class InputRequestListResponse {
  @ApiProperty({ type: [InputRequestDto] })
  input_requests!: InputRequestDto[];
}

export class ListInputRequestsQuery {
  @ApiPropertyOptional({ enum: INPUT_REQUEST_STATUSES, description: 'Only the requests in this status' })
  @IsOptional()
  @IsIn(INPUT_REQUEST_STATUSES)
  status?: InputRequestStatus;
}

export class AnswerInputRequestBody {
  @ApiProperty({ description: "Any JSON valid against the request's schema (or one of its choices)" })
  @IsDefined()
  answer!: unknown;
}
