import { ServiceEnv } from '@aas/platform';

export class WebhooksEnv extends ServiceEnv {
  override HEALTH_PORT: number = 3004;
}
