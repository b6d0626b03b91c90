import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public, ReadinessReport } from '@aas/platform';
import { ServiceUnavailableError } from '@aas/problem-details';
import { NoAddressLimit } from '../rate-limit/no-address-limit.decorator';
import { GatewayHealth } from './gateway-health';

/**
 * Unauthenticated. /healthz (liveness, start-up) and /readyz (readiness) are the kubelet's probes
 * and are never rate-limited; /readyz/deep, which asks every service, counts against the caller's
 * address (RATE_LIMIT_UNAUTHENTICATED_REQUESTS). docs/health.md.
 */
@ApiExcludeController()
@Public()
@Controller()
export class GatewayHealthController {
  constructor(private readonly health: GatewayHealth) {}

  @Get('healthz')
  @NoAddressLimit()
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  @NoAddressLimit()
  async readyz(): Promise<ReadinessReport> {
    return answer(await this.health.readiness());
  }

  @Get('readyz/deep')
  async deep(): Promise<ReadinessReport> {
    return answer(await this.health.deepStatus());
  }
}

/** 200 with the report when everything is up; otherwise a 503 Problem Details naming what is down. */
function answer(report: ReadinessReport): ReadinessReport {
  if (report.ready) return report;
  const down = Object.entries(report.checks).filter(([, status]) => status !== 'up');
  throw new ServiceUnavailableError(`Not ready: ${down.map(([name, status]) => `${name} ${status}`).join('; ')}`);
}
