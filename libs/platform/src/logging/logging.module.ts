import { DynamicModule, RequestMethod } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { IncomingMessage } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import type { Options } from 'pino-http';
import { CommonEnv } from '../config/common.env';
import { currentRequestId } from '../request-context/request-context';

export const REQUEST_ID_HEADER = 'x-request-id';

/** JSON logs (pino) carrying the service name and the request id; request headers, and so secrets, are left out. */
export function loggingModule(service: string): DynamicModule {
  return LoggerModule.forRootAsync({
    inject: [ConfigService],
    useFactory: (config: ConfigService<CommonEnv, true>) => ({
      // nestjs-pino's default route does not match under Nest 12 + Fastify; this one does.
      forRoutes: [{ path: '*path', method: RequestMethod.ALL }],
      pinoHttp: pinoHttpOptions(service, config.get('LOG_LEVEL', { infer: true })),
    }),
  });
}

/** pino-http's settings, for every app's HTTP requests. */
export function pinoHttpOptions(service: string, level: string): Options {
  return {
    level,
    base: { service },
    messageKey: 'msg',
    // The gateway's Fastify assigns the id (see request-id.ts); pino reuses it.
    genReqId: (req: IncomingMessage) => (req as IncomingMessage & { id?: string }).id ?? '',
    customAttributeKeys: { reqId: 'req_id' },
    // Outside the gateway's HTTP requests: handlers of service requests and of queued jobs.
    mixin: () => {
      const requestId = currentRequestId();
      return requestId ? { req_id: requestId } : {};
    },
    // No headers: they carry the secrets (x-api-key, authorization, cookie), and leaving them out costs less
    // than redacting them on every request, bound to its logger whether or not anything is logged.
    serializers: { req: requestForLog },
    autoLogging: { ignore: (req: IncomingMessage) => req.url === '/healthz' || req.url === '/readyz' },
  };
}

/** What a log line says of an HTTP request (after pino-std-serializers' own shaping). */
export function requestForLog(req: { id?: unknown; method?: string; url?: string; remoteAddress?: string }): object {
  return { id: req.id, method: req.method, url: req.url, remoteAddress: req.remoteAddress };
}
