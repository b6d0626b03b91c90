import { Module, Provider } from '@nestjs/common';
import { AgentRunsStore } from './agent-runs/agent-runs.store';
import { PostgresAgentRunsStore } from './agent-runs/postgres-agent-runs.store';
import { AgentStore } from './agents/agent.store';
import { PostgresAgentStore } from './agents/postgres-agent.store';
import { ApiKeyStore } from './api-keys/api-key.store';
import { PostgresApiKeyStore } from './api-keys/postgres-api-key.store';
import { ConsoleSessionStore } from './console-sessions/console-session.store';
import { PostgresConsoleSessionStore } from './console-sessions/postgres-console-session.store';
import { InstructionStore } from './instructions/instruction.store';
import { PostgresInstructionStore } from './instructions/postgres-instruction.store';
import { UserQuotaStore } from './quotas/user-quota.store';
import { PostgresUserQuotaStore } from './quotas/postgres-user-quota.store';
import { UserStore } from './users/user.store';
import { PostgresUserStore } from './users/postgres-user.store';
import { WorkspaceStore } from './workspaces/workspace.store';
import { PostgresWorkspaceStore } from './workspaces/postgres-workspace.store';
import { PostgresTransactions, Transactions } from '@aas/platform';

/** Each seam (an abstract class, the token services inject) and its PostgreSQL implementation. */
const STORES: Provider[] = [
  { provide: Transactions, useClass: PostgresTransactions },
  { provide: UserStore, useClass: PostgresUserStore },
  { provide: ApiKeyStore, useClass: PostgresApiKeyStore },
  { provide: UserQuotaStore, useClass: PostgresUserQuotaStore },
  { provide: ConsoleSessionStore, useClass: PostgresConsoleSessionStore },
  { provide: WorkspaceStore, useClass: PostgresWorkspaceStore },
  { provide: AgentStore, useClass: PostgresAgentStore },
  { provide: InstructionStore, useClass: PostgresInstructionStore },
  { provide: AgentRunsStore, useClass: PostgresAgentRunsStore },
];

/**
 * The persistence seam of agents-service: every statement it runs is in one of these stores
 * (`<folder>/<resource>.store.ts`); services, handlers and consumers hold the rules and inject the
 * abstract classes, so a unit test gives them in-memory fakes.
 */
@Module({ providers: STORES, exports: STORES })
export class StoresModule {}
