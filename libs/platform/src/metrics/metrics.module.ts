import { Controller, DynamicModule, Get, Header, Module } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { Public } from '../health/public.decorator';

/** Names of every metric start with this, so they sort together beside other exporters'. */
export const METRIC_PREFIX = 'aas_';

@ApiExcludeController()
@Public()
@Controller()
class MetricsController {
  constructor(private readonly registry: Registry) {}

  /** Prometheus text format; unauthenticated like the health paths, on the same port. */
  @Get('metrics')
  @Header('content-type', Registry.PROMETHEUS_CONTENT_TYPE)
  @Header('cache-control', 'no-store')
  async metrics(): Promise<string> {
    return this.registry.metrics();
  }
}

/**
 * One Prometheus registry per app (not prom-client's global one, so that apps
 * sharing a process in tests stay apart), labelled with the app's name, with
 * Node's process metrics, served at GET /metrics.
 */
@Module({})
export class MetricsModule {
  static forApp(service: string): DynamicModule {
    return {
      module: MetricsModule,
      global: true,
      controllers: [MetricsController],
      providers: [
        {
          provide: Registry,
          useFactory: () => {
            const registry = new Registry();
            registry.setDefaultLabels({ service });
            collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
            return registry;
          },
        },
      ],
      exports: [Registry],
    };
  }
}
