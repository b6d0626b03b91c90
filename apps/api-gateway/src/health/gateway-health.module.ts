import { Module } from '@nestjs/common';
import { GatewayHealthController } from './gateway-health.controller';
import { GatewayHealth } from './gateway-health';

/** /healthz, /readyz (the gateway's own readiness) and /readyz/deep (every service behind it). */
@Module({
  controllers: [GatewayHealthController],
  providers: [GatewayHealth],
})
export class GatewayHealthModule {}
