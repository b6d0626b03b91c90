import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { AgentContext, AgentContextMessage, AgentsPatterns } from '@aas/contracts';
import { DataSource } from 'typeorm';
import { AgentsService } from '../agents/agents.service';
import { InstructionsEntity } from '../instructions/instructions.entity';
import { UserEntity } from '../users/user.entity';

/** What runs-service needs of an agent to start and execute a run; another user's agent is a 404. */
@Controller()
export class AgentContextHandlers {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly agents: AgentsService,
  ) {}

  @MessagePattern(AgentsPatterns.GetAgentForRun)
  async context(@Payload() message: AgentContextMessage): Promise<AgentContext> {
    const manager = this.dataSource.manager;
    const agent = await this.agents.find(manager, message.user_id, message.agent_id);
    const [user, instructions] = await Promise.all([
      manager.findOneByOrFail(UserEntity, { id: message.user_id }),
      manager.findOneBy(InstructionsEntity, { agentId: agent.id }),
    ]);
    return {
      agent_id: agent.id,
      user_email: user.email,
      deployment_state: agent.deploymentState,
      instructions: instructions ? { content: instructions.content, plan_steps: instructions.planSteps } : null,
    };
  }
}
