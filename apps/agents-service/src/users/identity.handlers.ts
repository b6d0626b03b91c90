import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AgentsPatterns, MeResponse, UserScopedMessage } from '@aas/contracts';
import { UsersService } from './users.service';

@Controller()
export class IdentityHandlers {
  constructor(private readonly users: UsersService) {}

  @MessagePattern(AgentsPatterns.Me)
  me(@Payload() message: UserScopedMessage): Promise<MeResponse> {
    return this.users.me(message.user_id);
  }
}
