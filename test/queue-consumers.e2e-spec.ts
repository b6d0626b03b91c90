import { startServiceApp } from '@aas/platform';
import { migrateRunsSchema, startRunsService } from '../apps/runs-service/src/runs-service.app';
import { RunsServiceModule } from '../apps/runs-service/src/runs-service.module';
import { appEnv, isolatedInfra } from './support/isolated-infra';
import { createMigratedDatabase } from './support/template-database';

/**
 * Each back-end app consumes exactly its queues (QUEUE_CONSUMERS): started with the workers of
 * another app's queues, or without those of its own, it refuses to start and says which.
 */
describe('the queues an app consumes', () => {
  const infra = isolatedInfra();
  const env = appEnv(infra);

  beforeAll(() => createMigratedDatabase(infra.databaseUrl, (url) => migrateRunsSchema({ ...env, DATABASE_URL: url }).then(() => undefined)));
  afterAll(() => infra.dispose());

  it("refuses to start runs-service's modules as scheduler-service, naming the queues on both sides", async () => {
    await expect(startServiceApp(RunsServiceModule.forRoot(env), 'scheduler')).rejects.toThrow(
      'scheduler: no worker for scheduler-events, scheduler-fires; workers for queues it does not consume: ',
    );
  });

  it('starts runs-service with its own queues', async () => {
    const app = await startRunsService(env);
    await app.close();
  });
});
