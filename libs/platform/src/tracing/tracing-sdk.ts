import { diag, DiagConsoleLogger, DiagLogLevel } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_URL_FULL, ATTR_URL_PATH, ATTR_URL_QUERY } from '@opentelemetry/semantic-conventions';
import { loggablePath, loggableQuery, loggableUrl } from '../logging/loggable-url';

/**
 * The OpenTelemetry SDK: spans for incoming and outgoing HTTP, PostgreSQL and
 * Redis, exported over OTLP/HTTP (the exporter reads the standard
 * OTEL_EXPORTER_OTLP_* variables).
 */
export function startTracingSdk(service: string): NodeTracerProvider {
  if (process.env.OTEL_LOG_LEVEL?.toLowerCase() === 'debug') diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.DEBUG);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: process.env.OTEL_SERVICE_NAME || service }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Probes and scrapes would drown the traces that matter.
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => /^\/(healthz|readyz|metrics)\b/.test(req.url ?? ''),
        // An inbound URL's token is a credential: spans carry the path without it, as the logs do.
        startIncomingSpanHook: (req) => withoutSecrets(req.url ?? '/'),
      }),
      new UndiciInstrumentation({
        // A webhook may be delivered to a URL that carries a token (another installation's inbound URL).
        startSpanHook: (request) => ({ [ATTR_URL_FULL]: `${request.origin}${loggableUrl(request.path)}`, ...withoutSecrets(request.path) }),
      }),
      new PgInstrumentation(),
      new IORedisInstrumentation(),
    ],
  });
  return provider;
}

/** url.path and url.query of a request target, each without its secrets (loggable-url.ts). */
function withoutSecrets(target: string): Record<string, string> {
  const queryAt = target.indexOf('?');
  if (queryAt === -1) return { [ATTR_URL_PATH]: loggablePath(target) };
  return { [ATTR_URL_PATH]: loggablePath(target.slice(0, queryAt)), [ATTR_URL_QUERY]: loggableQuery(target.slice(queryAt + 1)) };
}
