import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { ProblemDetailsFilter } from '@aas/problem-details';
import { logRequests } from '@aas/platform';
import { Logger, PinoLogger } from 'nestjs-pino';
import { RuntimeEnv } from './config/runtime.env';
import { AgentRuntimeModule } from './agent-runtime.module';

/** A dispatch carries the agent's instructions (up to a few MB) and a trigger's payload. */
const DISPATCH_BODY_LIMIT = 16 * 1024 * 1024;

/** Starts the runtime on PORT. Overrides win over the environment (tests start it in-process). */
export async function startAgentRuntime(overrides: Record<string, string> = {}): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({ bodyLimit: DISPATCH_BODY_LIMIT });
  const app = await NestFactory.create<NestFastifyApplication>(AgentRuntimeModule.forRoot(overrides), adapter, { bufferLogs: true, rawBody: true });
  app.useLogger(app.get(Logger));
  logRequests(adapter.getInstance(), PinoLogger.root);
  app.useGlobalFilters(new ProblemDetailsFilter());
  await app.listen(app.get(RuntimeEnv).PORT, '0.0.0.0');
  return app;
}
