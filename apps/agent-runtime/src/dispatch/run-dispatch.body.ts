import { RunContinuation, RunDispatch, RunDispatchTrigger } from '@aas/contracts';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsISO8601, IsObject, IsOptional, IsString, MaxLength, Min, ValidateNested } from 'class-validator';

class DispatchInstructions {
  @IsString()
  content!: string;

  @IsArray()
  plan_steps!: unknown[];
}

/** A dispatch as runs-service sends it (docs/runtime-protocol.md); anything else is a 400. */
export class RunDispatchBody implements RunDispatch {
  @IsInt()
  @Min(1)
  protocol_version!: number;

  @IsString()
  @MaxLength(200)
  run_id!: string;

  @IsString()
  @MaxLength(200)
  agent_id!: string;

  @IsInt()
  run_number!: number;

  @IsIn(['build', 'run'])
  run_mode!: 'build' | 'run';

  @IsOptional()
  @IsString()
  user_message!: string | null;

  @IsString()
  trigger_kind!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => DispatchInstructions)
  instructions!: DispatchInstructions | null;

  @IsOptional()
  @IsISO8601({ strict: true })
  scheduled_for!: string | null;

  @IsISO8601({ strict: true })
  deadline_at!: string;

  @IsOptional()
  @IsObject()
  trigger?: RunDispatchTrigger;

  /** Version 3: the answer to the question the run suspended on, and the state it kept (tool-run.ts). */
  @IsOptional()
  @IsObject()
  continuation?: RunContinuation;
}
