import { randomUUID } from 'node:crypto';
import { ApiKeysService } from '../../apps/agents-service/src/api-keys/api-keys.service';
import { UsersService } from '../../apps/agents-service/src/users/users.service';
import { TestSystem } from './test-system';

export interface User {
  userId: string;
  email: string;
  key: string;
}

/** A new user with an API key, made directly in agents-service (as the admin command line does). */
export async function freshUser(system: TestSystem, label: string): Promise<User> {
  const app = system.agents[0];
  const email = `${label}-${randomUUID()}@example.test`;
  const user = await app.get(UsersService).createUser(email);
  const key = await app.get(ApiKeysService).create(user.id, 'theirs');
  return { userId: user.id, email, key: key.api_key };
}
