import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { RunDispatch, RuntimeLine } from '@aas/contracts';
import { signDispatch } from '../signing/runtime-signature';
import { AgentRuntime, RuntimeFailure } from './agent-runtime';
import { isRuntimeLine } from './runtime-line';

/** An external runtime: one POST per run, answered with an NDJSON stream of protocol lines. */
export class HttpRuntime implements AgentRuntime {
  constructor(
    private readonly url: string,
    private readonly secret: string | undefined,
  ) {}

  async *execute(dispatch: RunDispatch, signal: AbortSignal): AsyncIterable<RuntimeLine> {
    const body = JSON.stringify(dispatch);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/x-ndjson',
      'x-run-id': dispatch.run_id,
    };
    if (this.secret) headers['x-service-signature'] = signDispatch(this.secret, body);
    const response = await this.post(body, headers, signal);
    if (!response.ok || !response.body) {
      await response.body?.cancel().catch(() => undefined);
      throw new RuntimeFailure(`the runtime answered HTTP ${response.status}`);
    }
    const input = Readable.fromWeb(response.body as WebReadableStream);
    const lines = createInterface({ input, crlfDelay: Infinity });
    // An abort (a cancel, the timeout) while the executor is between lines (a line's run end waiting for
    // its effects) errors the stream with nobody iterating: readline would emit that error unhandled and
    // kill the process. The loop below still ends, and the executor knows why from the abort.
    lines.on('error', () => undefined);
    try {
      for await (const text of lines) {
        if (text.trim() === '') continue;
        yield parseLine(text);
      }
    } finally {
      // Left early (a terminal line, a bad line): without this, aborting the request later errors the
      // still-open stream, and readline re-emits that as an unhandled 'error' that kills the process.
      input.destroy();
    }
  }

  private async post(body: string, headers: Record<string, string>, signal: AbortSignal): Promise<Response> {
    try {
      return await fetch(this.url, { method: 'POST', body, headers, signal, redirect: 'error' });
    } catch (error) {
      if (signal.aborted) throw error;
      throw new RuntimeFailure(`the runtime could not be reached: ${(error as Error).message}`);
    }
  }
}

function parseLine(text: string): RuntimeLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RuntimeFailure('the runtime sent a line that is not JSON');
  }
  if (!isRuntimeLine(value)) throw new RuntimeFailure('the runtime sent a line that is not a JSON object with a string type');
  return value;
}
