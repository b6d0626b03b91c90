import { ServiceEnv } from '@aas/platform';

export class RunsEnv extends ServiceEnv {
  override HEALTH_PORT: number = 3002;
}
