import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { WebhooksEnv } from '../config/webhooks.env';
import { ENDPOINT_GATE_SETTINGS, EndpointGate, endpointGateSettings } from './endpoint-gate';

@Module({
  providers: [
    {
      provide: ENDPOINT_GATE_SETTINGS,
      inject: [ConfigService],
      useFactory: (config: ConfigService<WebhooksEnv, true>) => endpointGateSettings(config),
    },
    EndpointGate,
  ],
  exports: [EndpointGate],
})
export class FairnessModule {}
