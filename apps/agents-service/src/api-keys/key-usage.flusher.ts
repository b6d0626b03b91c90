import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AgentsEnv } from '../config/agents.env';
import { ApiKeysService } from './api-keys.service';

/** Gateways record key use in Redis (no database write per request); this copies it to PostgreSQL now and then. */
@Injectable()
export class KeyUsageFlusher implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(KeyUsageFlusher.name);
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly apiKeys: ApiKeysService,
    private readonly config: ConfigService<AgentsEnv, true>,
  ) {}

  onModuleInit(): void {
    const every = this.config.get('API_KEY_USAGE_FLUSH_MS', { infer: true });
    this.timer = setInterval(() => void this.flush(), every);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
  }

  private async flush(): Promise<void> {
    try {
      await this.apiKeys.flushUsage();
    } catch (error) {
      // Retried on the next tick; the times stay in Redis until then.
      this.logger.warn(`key usage flush failed: ${(error as Error).message}`);
    }
  }
}
