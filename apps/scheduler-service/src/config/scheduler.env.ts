import { ServiceEnv } from '@aas/platform';

export class SchedulerEnv extends ServiceEnv {
  override HEALTH_PORT: number = 3003;
}
