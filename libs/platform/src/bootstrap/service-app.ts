import { DynamicModule, INestApplication } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { patternsServedBy, queuesConsumedBy } from '@aas/contracts';
import { ProblemDetailsFilter, createValidationPipe } from '@aas/problem-details';
import { RedisStreamsServer } from '@aas/transport';
import { Logger, PinoLogger } from 'nestjs-pino';
import { Histogram, Registry } from 'prom-client';
import { ServiceEnv } from '../config/common.env';
import { logRequests } from '../logging/request-log';
import { METRIC_PREFIX } from '../metrics/metrics.module';
import { AppQueueWorkers } from '../queues/app-queue-workers';
import { consumedQueuesProblem } from '../queues/consumed-queues';
import { runInRequestContext } from '../request-context/request-context';
import { tracingEnabled } from '../tracing/start-tracing';

/**
 * Starts a back-end service: message handlers on the Redis Streams transport
 * (its consumer group is `service`) and /healthz, /readyz on HEALTH_PORT.
 */
export async function startServiceApp(module: DynamicModule, service: string): Promise<INestApplication> {
  const adapter = new FastifyAdapter();
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  logRequests(adapter.getInstance(), PinoLogger.root);
  app.useGlobalFilters(new ProblemDetailsFilter());
  app.useGlobalPipes(createValidationPipe());
  const config = app.get<ConfigService<ServiceEnv, true>>(ConfigService);
  const rpcDuration = new Histogram({
    name: `${METRIC_PREFIX}rpc_request_duration_seconds`,
    help: 'Time to handle a request from the transport, by message pattern and outcome',
    labelNames: ['pattern', 'outcome'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [app.get(Registry)],
  });
  app.connectMicroservice(
    {
      strategy: new RedisStreamsServer({
        url: config.get('REDIS_URL', { infer: true }),
        prefix: config.get('REDIS_PREFIX', { infer: true }),
        service,
        concurrency: config.get('RPC_CONCURRENCY', { infer: true }),
        runInContext: (metadata, run) => runInRequestContext(metadata.request_id, run),
        onHandled: (pattern, seconds, failed) => rpcDuration.observe({ pattern, outcome: failed ? 'error' : 'ok' }, seconds),
        tracing: tracingEnabled(),
        servedPatterns: patternsServedBy(service),
      }),
    },
    { inheritAppConfig: true },
  );
  await refuseWrongQueueWorkers(app, service);
  await app.startAllMicroservices();
  await app.listen(config.get('HEALTH_PORT', { infer: true }), '0.0.0.0');
  return app;
}

/** Started (and so its workers made), the app stops with the reason when it does not consume exactly its queues. */
async function refuseWrongQueueWorkers(app: INestApplication, service: string): Promise<void> {
  await app.init();
  const consumed = app.get(AppQueueWorkers).all().map(({ worker }) => worker.name);
  const problem = consumedQueuesProblem(service, queuesConsumedBy(service), consumed);
  if (!problem) return;
  await app.close();
  throw new Error(problem);
}
