import { OutboxEventEntity, OutboxRequestId1763910000000, SchemaDefinition } from '@aas/platform';
import { AgentEntity } from './agent.entity';
import { ApiKeyEntity } from './api-key.entity';
import { InstructionVersionEntity } from './instruction-version.entity';
import { InstructionsEntity } from './instructions.entity';
import { UserEntity } from './user.entity';
import { WorkspaceEntity } from './workspace.entity';
import { CreateUsersAndApiKeys1763840000000 } from './migrations/1763840000000-create-users-and-api-keys';
import { CreateCatalogue1763850000000 } from './migrations/1763850000000-create-catalogue';
import { TrackRunProgress1763860000000 } from './migrations/1763860000000-track-run-progress';
import { ConsoleSignIn1763970000000 } from './migrations/1763970000000-console-sign-in';
import { HardenConsoleSignIn1764410000000 } from './migrations/1764410000000-harden-console-sign-in';
import { WorkspaceRunRetention1764970000000 } from './migrations/1764970000000-workspace-run-retention';

export const AGENTS_SCHEMA: SchemaDefinition = {
  schema: 'agents',
  entities: [UserEntity, ApiKeyEntity, WorkspaceEntity, AgentEntity, InstructionsEntity, InstructionVersionEntity, OutboxEventEntity],
  migrations: [CreateUsersAndApiKeys1763840000000, CreateCatalogue1763850000000, TrackRunProgress1763860000000, OutboxRequestId1763910000000, ConsoleSignIn1763970000000, HardenConsoleSignIn1764410000000, WorkspaceRunRetention1764970000000],
};
