import { IntersectionType } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';
import { CancelRunRequest, ListRunsQuery, RunEventsQuery, StartRunRequest } from '../dto/runs.dto';
import { AgentScopedMessage, RunScopedMessage } from './user-scoped.message';

export class StartRunMessage extends IntersectionType(StartRunRequest, AgentScopedMessage) {
  /** The Idempotency-Key header: 1-255 visible ASCII characters. */
  @IsOptional()
  @Matches(/^[\x21-\x7e]{1,255}$/, { message: 'Idempotency-Key must be 1-255 visible ASCII characters' })
  idempotency_key?: string;
}

export class RunRefMessage extends RunScopedMessage {}
export class CancelRunMessage extends IntersectionType(CancelRunRequest, RunScopedMessage) {}
export class ListRunsMessage extends IntersectionType(ListRunsQuery, AgentScopedMessage) {}
export class RunEventsMessage extends IntersectionType(RunEventsQuery, RunScopedMessage) {}

/** runs-service asks agents-service for what a run needs of its agent. */
export class AgentContextMessage extends AgentScopedMessage {}

export interface AgentContext {
  agent_id: string;
  user_email: string;
  deployment_state: 'deployed' | 'not_deployed';
  instructions: { content: string; plan_steps: unknown[] | null } | null;
}
