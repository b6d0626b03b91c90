import { DynamicModule, RequestMethod } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { IncomingMessage } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { CommonEnv } from '../config/common.env';
import { currentRequestId } from '../request-context/request-context';

export const REQUEST_ID_HEADER = 'x-request-id';

/** JSON logs (pino) carrying the service name and the request id; secrets are redacted. */
export function loggingModule(service: string): DynamicModule {
  return LoggerModule.forRootAsync({
    inject: [ConfigService],
    useFactory: (config: ConfigService<CommonEnv, true>) => ({
      // nestjs-pino's default route does not match under Nest 12 + Fastify; this one does.
      forRoutes: [{ path: '*path', method: RequestMethod.ALL }],
      pinoHttp: {
        level: config.get('LOG_LEVEL', { infer: true }),
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
        redact: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'],
        autoLogging: { ignore: (req: IncomingMessage) => req.url === '/healthz' || req.url === '/readyz' },
      },
    }),
  });
}
