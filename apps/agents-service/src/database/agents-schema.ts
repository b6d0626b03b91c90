import { SchemaDefinition } from '@aas/platform';
import { ApiKeyEntity } from '../api-keys/api-key.entity';
import { UserEntity } from '../users/user.entity';
import { CreateUsersAndApiKeys1763840000000 } from './migrations/1763840000000-create-users-and-api-keys';

export const AGENTS_SCHEMA: SchemaDefinition = {
  schema: 'agents',
  entities: [UserEntity, ApiKeyEntity],
  migrations: [CreateUsersAndApiKeys1763840000000],
};
