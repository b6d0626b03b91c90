import fastifyCookie from '@fastify/cookie';
import { INestApplication } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { REQUEST_ID_HEADER, logRequests, validateEnv } from '@aas/platform';
import { ProblemDetailsFilter, createValidationPipe } from '@aas/problem-details';
import type { IncomingMessage } from 'node:http';
import { Logger, PinoLogger } from 'nestjs-pino';
import { Registry } from 'prom-client';
import { ApiGatewayModule } from './api-gateway.module';
import { GatewayEnv } from './config/gateway.env';
import { parseTrustProxy } from './config/trust-proxy';
import { consoleDirectory, serveConsole } from './console/serve-console';
import { capConnectionsPerAddress, countRequestTimeouts } from './http/connection-cap';
import { installBodyChecks, problemFastifyOptions } from './http/http-hardening';
import { serverTimeouts } from './http/server-timeouts';
import { requestIdFor } from './http/request-id';
import { buildOpenApiDocument, serveOpenApi } from './openapi/openapi-document';
import { addressKey } from './rate-limit/client-address';

export async function startApiGateway(overrides: Record<string, string> = {}): Promise<INestApplication> {
  const app = await createApiGateway(overrides);
  const config = app.get<ConfigService<GatewayEnv, true>>(ConfigService);
  await app.listen(config.get('PORT', { infer: true }), '0.0.0.0');
  return app;
}

export async function createApiGateway(overrides: Record<string, string> = {}): Promise<NestFastifyApplication> {
  const module = ApiGatewayModule.forRoot(overrides);
  // Fastify takes its body limit before Nest (and @nestjs/config) exist, so the settings are validated here too.
  const env = validateEnv(GatewayEnv, { ...process.env, ...overrides });
  const trustProxy = parseTrustProxy(env.TRUST_PROXY);
  const adapter = new FastifyAdapter({
    bodyLimit: env.BODY_LIMIT_BYTES,
    // request.ip: the client address the per-address rate limit counts (and the logs show).
    trustProxy,
    ...serverTimeouts(env),
    genReqId: (request: IncomingMessage) => requestIdFor(request),
    requestIdHeader: false,
    logger: false,
    return503OnClosing: true,
    ...problemFastifyOptions,
  });
  const fastify = adapter.getInstance();
  fastify.addHook('onRequest', async (request, reply) => {
    (request.raw as IncomingMessage & { id?: string }).id = request.id;
    void reply.header(REQUEST_ID_HEADER, request.id);
  });
  installBodyChecks(fastify);
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, { bufferLogs: true, rawBody: true });
  const registry = app.get(Registry);
  capConnectionsPerAddress(fastify, { perAddress: env.HTTP_CONNECTIONS_PER_ADDRESS, trustProxy, registry });
  countRequestTimeouts(fastify, registry);
  app.useLogger(app.get(Logger));
  // Its lines carry the request id themselves: the gateway binds no per-request context (on Node 20 an
  // AsyncLocalStorage in use puts a hook on every promise), so its routes pass the id on explicitly.
  logRequests(fastify, PinoLogger.root, { clientAddress: (request) => addressKey(request.ip) });
  await app.register(fastifyCookie);
  await serveConsole(fastify, consoleDirectory(env.CONSOLE_DIR));
  // Also sees what Fastify rejects before routing (bad JSON, oversize body): Nest installs its error handler on Fastify.
  app.useGlobalFilters(new ProblemDetailsFilter());
  app.useGlobalPipes(createValidationPipe());
  serveOpenApi(app, buildOpenApiDocument(app));
  return app;
}
