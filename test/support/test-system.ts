import { INestApplication } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { migrateAgentsSchema, startAgentsService } from '../../apps/agents-service/src/agents-service.app';
import { startApiGateway } from '../../apps/api-gateway/src/api-gateway.app';
import { migrateRunsSchema, startRunsService } from '../../apps/runs-service/src/runs-service.app';
import { migrateSchedulerSchema, startSchedulerService } from '../../apps/scheduler-service/src/scheduler-service.app';
import { migrateWebhooksSchema, startWebhooksService } from '../../apps/webhook-delivery/src/webhook-delivery.app';
import { freePort } from './free-port';
import { IsolatedInfra, appEnv, isolatedInfra } from './isolated-infra';
import { createMigratedDatabase } from './template-database';

export interface SystemOptions {
  agentsReplicas?: number;
  gateways?: number;
  bootstrapApiKey?: string;
  gatewayEnv?: Record<string, string>;
  agentsEnv?: Record<string, string>;
  runsEnv?: Record<string, string>;
  schedulerEnv?: Record<string, string>;
  webhooksEnv?: Record<string, string>;
  /** false: no in-process webhook-delivery (a test runs it as separate processes). */
  webhooks?: boolean;
}

type Env = Record<string, string>;

/** A fixed key for encrypting webhook secrets in tests (32 bytes, base64). */
export const TEST_WEBHOOK_SECRET_KEY = Buffer.alloc(32, 7).toString('base64');

/**
 * The real apps, each a Nest application with its own Redis and PostgreSQL
 * connections and transport consumer, against this test file's own database
 * and Redis prefix. Ports are picked by the OS.
 */
export class TestSystem {
  readonly gateways: INestApplication[] = [];
  readonly agents: INestApplication[] = [];
  readonly others: Record<'runs' | 'scheduler' | 'webhooks', INestApplication | undefined> = {
    runs: undefined,
    scheduler: undefined,
    webhooks: undefined,
  };

  private constructor(readonly infra: IsolatedInfra) {}

  static async start(options: SystemOptions = {}): Promise<TestSystem> {
    const system = new TestSystem(isolatedInfra());
    const env = system.baseEnv();
    await createMigratedDatabase(system.infra.databaseUrl, (url) => migrateAllSchemas({ ...env, DATABASE_URL: url }));
    const agentsEnv = { ...env, ...options.agentsEnv, ...(options.bootstrapApiKey ? { BOOTSTRAP_API_KEY: options.bootstrapApiKey } : {}) };
    for (let i = 0; i < (options.agentsReplicas ?? 1); i++) system.agents.push(await startAgentsService(agentsEnv));
    system.others.runs = await startRunsService({ ...env, ...options.runsEnv });
    system.others.scheduler = await startSchedulerService({ ...env, ...options.schedulerEnv });
    if (options.webhooks !== false) system.others.webhooks = await startWebhooksService({ ...env, ...options.webhooksEnv });
    for (let i = 0; i < (options.gateways ?? 1); i++) {
      system.gateways.push(await system.startGateway(options.gatewayEnv));
    }
    return system;
  }

  /** One more gateway on this system, on a port chosen first so the URLs it answers (PUBLIC_BASE_URL) lead to it; the caller closes it. */
  async startGateway(env: Env = {}): Promise<INestApplication> {
    const port = await freePort();
    return startApiGateway({ ...this.baseEnv(), PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, ...env });
  }

  baseEnv(): Env {
    return {
      ...appEnv(this.infra),
      // Tests send many requests with one key, all from 127.0.0.1; test/rate-limit.e2e-spec.ts sets limits of its own.
      RATE_LIMIT_REQUESTS: '0',
      RATE_LIMIT_UNAUTHENTICATED_REQUESTS: '0',
      WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
    };
  }

  url(gateway = 0): string {
    return urlOf(this.gateways[gateway]);
  }

  async stop(): Promise<void> {
    const apps = [...this.gateways, ...this.agents, ...Object.values(this.others)].filter(
      (app): app is INestApplication => app !== undefined,
    );
    await Promise.allSettled(apps.map((app) => app.close()));
    await this.infra.dispose();
  }
}

async function migrateAllSchemas(env: Env): Promise<void> {
  await migrateAgentsSchema(env);
  await migrateRunsSchema(env);
  await migrateSchedulerSchema(env);
  await migrateWebhooksSchema(env);
}

export function urlOf(app: INestApplication): string {
  const address = app.getHttpServer().address() as AddressInfo;
  return `http://127.0.0.1:${address.port}`;
}
