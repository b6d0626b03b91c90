import { IntersectionType } from '@nestjs/swagger';
import { PutBudgetRequest } from '../dto/budgets.dto';
import { AgentScopedMessage, UserScopedMessage } from './user-scoped.message';

export class UserBudgetMessage extends UserScopedMessage {}
export class PutUserBudgetMessage extends IntersectionType(PutBudgetRequest, UserScopedMessage) {}
export class AgentBudgetMessage extends AgentScopedMessage {}
export class PutAgentBudgetMessage extends IntersectionType(PutBudgetRequest, AgentScopedMessage) {}
