// Imported first by every main.ts, before anything that loads http, pg, ioredis or undici,
// so the instrumentations can patch those modules as they load. It must not import the
// rest of @aas/platform for that reason.
import { diag, DiagConsoleLogger, DiagLogLevel } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

let provider: NodeTracerProvider | undefined;

/**
 * Whether tracing is on: the standard OpenTelemetry variables decide. An OTLP
 * endpoint switches it on; OTEL_SDK_DISABLED=true keeps it off regardless.
 */
export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * OpenTelemetry tracing, off unless switched on by env: spans for incoming
 * and outgoing HTTP, PostgreSQL and Redis, exported over OTLP/HTTP (the
 * exporter reads the standard OTEL_EXPORTER_OTLP_* variables). The transport
 * carries the trace context, so one API request is one trace across services.
 */
export function startTracing(service: string): void {
  if (!tracingEnabled()) return;
  if (process.env.OTEL_LOG_LEVEL?.toLowerCase() === 'debug') diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.DEBUG);
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: process.env.OTEL_SERVICE_NAME || service }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Probes and scrapes would drown the traces that matter.
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => /^\/(healthz|readyz|metrics)\b/.test(req.url ?? '') }),
      new UndiciInstrumentation(),
      new PgInstrumentation(),
      new IORedisInstrumentation(),
    ],
  });
}

/** Sends the spans still buffered; the apps call it last when they stop. */
export async function flushTracing(): Promise<void> {
  await provider?.shutdown();
}
