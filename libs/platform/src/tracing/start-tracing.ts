// Imported first by every main.ts, before anything that loads http, pg, ioredis or undici,
// so the instrumentations can patch those modules as they load. It must not import the
// rest of @aas/platform for that reason.
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

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
 * OpenTelemetry tracing, off unless switched on by env (see tracing-sdk.ts).
 * The transport carries the trace context, so one API request is one trace
 * across services.
 */
export function startTracing(service: string): void {
  if (!tracingEnabled()) return;
  // Loaded only when tracing is on: the SDK and its instrumentations cost about 15 MB per process.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startTracingSdk } = require('./tracing-sdk') as typeof import('./tracing-sdk');
  provider = startTracingSdk(service);
}

/** Sends the spans still buffered; the apps call it last when they stop. */
export async function flushTracing(): Promise<void> {
  await provider?.shutdown();
}
