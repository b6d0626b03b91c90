import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  AgentsPatterns,
  CheckSetupTokenMessage,
  ConsoleSession,
  ConsoleSessionTokenMessage,
  ConsoleSetupMessage,
  ConsoleSetupStatus,
  CreateConsoleSessionMessage,
  HandlesRequest,
  LoginCredentials,
  LoginCredentialsMessage,
} from '@aas/contracts';
import { ConsoleSessionsService } from './console-sessions.service';

@Controller()
export class ConsoleSessionsHandlers {
  constructor(private readonly sessions: ConsoleSessionsService) {}

  @HandlesRequest(AgentsPatterns.ConsoleSetupStatus)
  async setupStatus(): Promise<ConsoleSetupStatus> {
    return { setup_required: await this.sessions.setupRequired() };
  }

  @HandlesRequest(AgentsPatterns.ConsoleSetup)
  setup(@Payload() message: ConsoleSetupMessage): Promise<ConsoleSession> {
    return this.sessions.setup(message);
  }

  @HandlesRequest(AgentsPatterns.CheckSetupToken)
  checkSetupToken(@Payload() message: CheckSetupTokenMessage): Promise<{ valid: true }> {
    return this.sessions.checkSetupToken(message.setup_token_hash);
  }

  @HandlesRequest(AgentsPatterns.LoginCredentials)
  loginCredentials(@Payload() message: LoginCredentialsMessage): Promise<LoginCredentials | null> {
    return this.sessions.loginCredentials(message.email);
  }

  @HandlesRequest(AgentsPatterns.CreateConsoleSession)
  create(@Payload() message: CreateConsoleSessionMessage): Promise<ConsoleSession> {
    return this.sessions.createSession(message.user_id, message.password_hash, message.session_token_hash, message.new_password_hash);
  }

  @HandlesRequest(AgentsPatterns.VerifyConsoleSession)
  verify(@Payload() message: ConsoleSessionTokenMessage): Promise<ConsoleSession | null> {
    return this.sessions.verify(message.session_token_hash);
  }

  @HandlesRequest(AgentsPatterns.EndConsoleSession)
  end(@Payload() message: ConsoleSessionTokenMessage): Promise<{ ended: boolean }> {
    return this.sessions.end(message.session_token_hash);
  }
}
