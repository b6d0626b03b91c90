import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AgentsEnv } from '../config/agents.env';
import { UsersService } from '../users/users.service';
import { ApiKeysService } from './api-keys.service';

/** BOOTSTRAP_API_KEY (docs/operations.md): the default user exists and this exact key is valid for it. */
@Injectable()
export class BootstrapApiKey implements OnApplicationBootstrap {
  private readonly logger = new Logger(BootstrapApiKey.name);

  constructor(
    private readonly config: ConfigService<AgentsEnv, true>,
    private readonly users: UsersService,
    private readonly apiKeys: ApiKeysService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const token = this.config.get('BOOTSTRAP_API_KEY', { infer: true });
    if (!token) return;
    const user = await this.users.ensureUser(this.config.get('BOOTSTRAP_USER_EMAIL', { infer: true }));
    const keyId = await this.apiKeys.ensureKey(user.id, token, 'bootstrap');
    this.logger.log({ user_id: user.id, key_id: keyId }, 'bootstrap API key is valid');
  }
}
