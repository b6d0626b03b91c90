import { DynamicModule, INestApplication } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { ProblemDetailsFilter, createValidationPipe } from '@aas/problem-details';
import { RedisStreamsServer } from '@aas/transport';
import { Logger, PinoLogger } from 'nestjs-pino';
import { ServiceEnv } from '../config/common.env';
import { exitCleanlyOnSignals } from './shutdown-signals';

/**
 * Starts a back-end service: message handlers on the Redis Streams transport
 * (its consumer group is `service`) and /healthz, /readyz on HEALTH_PORT.
 */
export async function startServiceApp(module: DynamicModule, service: string): Promise<INestApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(module, new FastifyAdapter(), { bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.useGlobalFilters(new ProblemDetailsFilter());
  app.useGlobalPipes(createValidationPipe());
  const config = app.get<ConfigService<ServiceEnv, true>>(ConfigService);
  const pino = await app.resolve(PinoLogger);
  app.connectMicroservice(
    {
      strategy: new RedisStreamsServer({
        url: config.get('REDIS_URL', { infer: true }),
        prefix: config.get('REDIS_PREFIX', { infer: true }),
        service,
        concurrency: config.get('RPC_CONCURRENCY', { infer: true }),
        runInContext: (metadata, run) => pino.runInContext(run, { bindings: { req_id: metadata.request_id } }),
      }),
    },
    { inheritAppConfig: true },
  );
  exitCleanlyOnSignals(app);
  await app.startAllMicroservices();
  await app.listen(config.get('HEALTH_PORT', { infer: true }), '0.0.0.0');
  return app;
}
