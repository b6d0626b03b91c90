import { DynamicModule } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { LoggerModule } from 'nestjs-pino';
import type { Options } from 'pino-http';
import { CommonEnv } from '../config/common.env';
import { currentRequestId } from '../request-context/request-context';

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * JSON logs (pino) carrying the service name and the request id. HTTP requests are logged by
 * `logRequests` (one line each, from a Fastify hook), not by nestjs-pino's pino-http middleware,
 * which bound a child logger to every request whether or not anything was logged.
 */
export function loggingModule(service: string): DynamicModule {
  return LoggerModule.forRootAsync({
    inject: [ConfigService],
    useFactory: (config: ConfigService<CommonEnv, true>) => ({
      forRoutes: [],
      pinoHttp: loggerOptions(service, config.get('LOG_LEVEL', { infer: true })),
    }),
  });
}

/** The root logger's settings (nestjs-pino builds it through pino-http, which passes them to pino). */
export function loggerOptions(service: string, level: string): Options {
  return {
    level,
    base: { service },
    messageKey: 'msg',
    // Whatever runs for an API request (the gateway's routes, handlers of service requests, queued jobs) logs its id.
    mixin: () => {
      const requestId = currentRequestId();
      return requestId ? { req_id: requestId } : {};
    },
  };
}
