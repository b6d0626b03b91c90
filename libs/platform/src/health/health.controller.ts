import { Controller, Get, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ServiceUnavailableError } from '@aas/problem-details';
import { HEALTH_CHECKS, HealthCheck, ReadinessReport, runHealthChecks } from './health-check';
import { Public } from './public.decorator';

/** Liveness and readiness for k8s probes; unauthenticated. */
@ApiExcludeController()
@Public()
@Controller()
export class HealthController {
  constructor(@Inject(HEALTH_CHECKS) private readonly checks: HealthCheck[]) {}

  @Get('healthz')
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  async readyz(): Promise<ReadinessReport> {
    const report = await runHealthChecks(this.checks);
    if (!report.ready) {
      const down = Object.entries(report.checks).filter(([, s]) => s !== 'up');
      throw new ServiceUnavailableError(`Not ready: ${down.map(([n, s]) => `${n} ${s}`).join('; ')}`);
    }
    return report;
  }
}
