import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  AgentContext,
  AgentContextMessage,
  AgentStartContext,
  AgentStartContextsMessage,
  AgentStartContextsResponse,
  AgentsPatterns,
} from '@aas/contracts';
import { ResourceNotFoundError } from '@aas/problem-details';
import { DataSource } from 'typeorm';
import { isUuid } from '../common/is-uuid';

interface AgentContextRow {
  agent_id: string;
  generation: string;
  user_email: string;
  deployment_state: AgentContext['deployment_state'];
  content: string | null;
  plan_steps: unknown[] | null;
}

/**
 * What runs-service needs of an agent to start and execute a run; another user's agent is a 404.
 * Every other service asks here whether an agent exists (and which generation it is), so a deleted
 * agent is gone for all of them as soon as its row is.
 */
@Controller()
export class AgentContextHandlers {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Asked once per run executed (and by the scheduler and webhooks): one query, agent, owner and instructions joined. */
  @MessagePattern(AgentsPatterns.GetAgentForRun)
  async context(@Payload() message: AgentContextMessage): Promise<AgentContext> {
    const [row]: AgentContextRow[] = isUuid(message.agent_id)
      ? await this.dataSource.query(
          `SELECT a.id AS agent_id, a.seq AS generation, u.email AS user_email, a.deployment_state, i.content, i.plan_steps
             FROM agents a JOIN users u ON u.id = a.user_id LEFT JOIN instructions i ON i.agent_id = a.id
            WHERE a.id = $1 AND a.user_id = $2`,
          [message.agent_id, message.user_id],
        )
      : [];
    if (!row) throw new ResourceNotFoundError('Agent', message.agent_id);
    return {
      agent_id: row.agent_id,
      generation: Number(row.generation),
      user_email: row.user_email,
      deployment_state: row.deployment_state,
      instructions: row.content === null ? null : { content: row.content, plan_steps: row.plan_steps ?? [] },
    };
  }

  /** Many agents in one query; one that is gone or another user's is simply absent from the answer. */
  @MessagePattern(AgentsPatterns.GetAgentsForRunStarts)
  async startContexts(@Payload() message: AgentStartContextsMessage): Promise<AgentStartContextsResponse> {
    if (message.agents.length === 0) return { agents: [] };
    const agents: AgentStartContext[] = await this.dataSource.query(
      `SELECT a.id AS agent_id, a.seq::float8 AS generation, a.user_id, u.email AS user_email, a.deployment_state
         FROM agents a JOIN users u ON u.id = a.user_id
        WHERE (a.id, a.user_id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[]))`,
      [message.agents.map((a) => a.agent_id), message.agents.map((a) => a.user_id)],
    );
    return { agents };
  }
}
