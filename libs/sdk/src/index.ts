/**
 * Typed client of the Agent Automation Service API. The types are generated from
 * the gateway's OpenAPI document (`npm run sdk:generate`); calls go through
 * openapi-fetch, so paths, parameters, bodies and answers are all checked.
 *
 *   const aas = createAasClient({ baseUrl: 'https://aas.example.com', apiKey: process.env.AAS_API_KEY });
 *   const { data, error } = await aas.GET('/v1/agents/{agent_id}', { params: { path: { agent_id } } });
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { components, paths } from './schema.d.ts';

export type { components, paths };
export type Schemas = components['schemas'];
export type AasClient = Client<paths>;
export type Problem = Schemas['ProblemDetailDto'] & { request_id?: string; errors?: { field: string; message: string }[] };
export type RunEvent = Schemas['RunEventItem'];

export interface AasClientOptions {
  /** Where the gateway is, e.g. `https://aas.example.com`; `''` for the same origin (the console). */
  baseUrl: string;
  /** Programs authenticate with an API key. */
  apiKey?: string;
  /** Headers on every request (the console sends its CSRF token). */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

export function createAasClient(options: AasClientOptions): AasClient {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  return createClient<paths>({ baseUrl: options.baseUrl, headers, fetch: options.fetch });
}

/** Adds a header, read on every request (e.g. a token that changes after sign-in). */
export function headerMiddleware(name: string, value: () => string | undefined): Middleware {
  return {
    onRequest({ request }) {
      const current = value();
      if (current) request.headers.set(name, current);
      return request;
    },
  };
}

/** True for an RFC 9457 Problem Details body, as every error of the API is. */
export function isProblem(value: unknown): value is Problem {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.type === 'string' && typeof v.status === 'number' && typeof v.detail === 'string';
}

/** An error answer of the API, thrown by `unwrap`. */
export class AasApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | undefined,
  ) {
    super(problem?.detail ?? `The API answered ${status}`);
    this.name = 'AasApiError';
  }
}

/** The data of a call, or an AasApiError carrying its Problem Details. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new AasApiError(response.status, isProblem(error) ? error : undefined);
  return data as T;
}

export type RunStreamMessage = { kind: 'event'; event: RunEvent } | { kind: 'end' };

/**
 * A run's events as they are recorded (Server-Sent Events of
 * GET /v1/agents/{agent_id}/runs/{run_id}/events/stream), after `lastEventIndex`
 * when given; ends with `{kind: 'end'}` once the run is finished. A stream the
 * server closes early just ends: call again with the last index seen to resume.
 */
export async function* streamRunEvents(
  client: AasClient,
  agentId: string,
  runId: string,
  options: { lastEventIndex?: number; signal?: AbortSignal } = {},
): AsyncGenerator<RunStreamMessage> {
  const { response, error } = await client.GET('/v1/agents/{agent_id}/runs/{run_id}/events/stream', {
    params: {
      path: { agent_id: agentId, run_id: runId },
      header: options.lastEventIndex === undefined ? undefined : { 'Last-Event-ID': String(options.lastEventIndex) },
    },
    parseAs: 'stream',
    signal: options.signal,
  });
  if (!response.ok || !response.body) throw new AasApiError(response.status, isProblem(error) ? error : undefined);
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      if (value.event === 'end') {
        yield { kind: 'end' };
        return;
      }
      if (value.event === 'run_event') yield { kind: 'event', event: JSON.parse(value.data) as RunEvent };
    }
  } finally {
    reader.releaseLock();
    await events.cancel().catch(() => undefined);
  }
}
