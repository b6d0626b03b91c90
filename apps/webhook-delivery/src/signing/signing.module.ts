import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { SecretBox } from '@aas/platform';
import { WebhooksEnv } from '../config/webhooks.env';
import { SigningSecrets } from './signing-secrets';

@Module({
  providers: [
    {
      provide: SecretBox,
      inject: [ConfigService],
      useFactory: (config: ConfigService<WebhooksEnv, true>) => new SecretBox(config.get('WEBHOOK_SECRET_KEY', { infer: true })),
    },
    SigningSecrets,
  ],
  exports: [SigningSecrets],
})
export class SigningModule {}
