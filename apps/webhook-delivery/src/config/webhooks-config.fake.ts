import { ConfigService } from '@nestjs/config';
import { WebhooksEnv } from './webhooks.env';

/** The settings with their defaults, and `overrides`, as services read them; left out of the build. */
export function fakeWebhooksConfig(overrides: Partial<WebhooksEnv> = {}): ConfigService<WebhooksEnv, true> {
  const env = Object.assign(new WebhooksEnv(), { WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') }, overrides);
  return { get: (key: keyof WebhooksEnv) => env[key] } as unknown as ConfigService<WebhooksEnv, true>;
}
