import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  AgentsPatterns,
  HandlesRequest,
  MeResponse,
  UserScopedMessage,
} from '@aas/contracts';
import { UsersService } from './users.service';

@Controller()
export class IdentityHandlers {
  constructor(private readonly users: UsersService) {}

  @HandlesRequest(AgentsPatterns.Me)
  me(@Payload() message: UserScopedMessage): Promise<MeResponse> {
    return this.users.me(message.user_id);
  }
}
