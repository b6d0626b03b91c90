import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { METRIC_PREFIX } from '@aas/platform';
import type { FastifyInstance } from 'fastify';
import { Histogram, Registry } from 'prom-client';

/** Request latency by route pattern (not raw path, which would give a series per id), method and status. */
@Injectable()
export class HttpMetrics implements OnModuleInit {
  private readonly duration: Histogram<'method' | 'route' | 'status_code'>;

  constructor(
    registry: Registry,
    private readonly adapterHost: HttpAdapterHost,
  ) {
    this.duration = new Histogram({
      name: `${METRIC_PREFIX}http_request_duration_seconds`,
      help: 'Time from request received to response sent, by method, route pattern and status code',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
  }

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onResponse', async (request, reply) => {
      this.duration.observe(
        { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) },
        reply.elapsedTime / 1000,
      );
    });
  }
}
