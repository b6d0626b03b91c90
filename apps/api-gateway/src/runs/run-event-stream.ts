import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { RunEventsResponse, RunResponse, RunsPatterns } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { ValidationFailedError } from '@aas/problem-details';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

const POLL_MS = 250;
const HEARTBEAT_MS = 15_000;
const BATCH = 500;

export interface StreamTarget {
  userId: string;
  agentId: string;
  runId: string;
  requestId: string;
}

/**
 * A run's events as Server-Sent Events: each event's index is its SSE id, so a
 * client that reconnects with Last-Event-ID resumes after the last one it saw.
 * Events are read from runs-service, so any gateway replica can serve a stream.
 * The stream ends with an `end` event once the run is finished and all its
 * events were sent. On shutdown open streams are closed without it, so clients
 * reconnect (with Last-Event-ID) to another replica.
 */
@Injectable()
export class RunEventStream implements BeforeApplicationShutdown {
  private readonly streaming = new Set<ServerResponse>();

  constructor(private readonly services: ServiceClient) {}

  /** Runs before the HTTP server closes, which would otherwise wait for every stream to end. */
  beforeApplicationShutdown(): void {
    for (const out of this.streaming) out.end();
  }

  /** Throws (a 404, a 400) before anything is written, so errors are still Problem Details. */
  async open(target: StreamTarget, lastEventId: string | undefined): Promise<{ after: number | undefined; first: RunEventsResponse }> {
    const after = parseLastEventId(lastEventId);
    return { after, first: await this.read(target, after) };
  }

  async pump(target: StreamTarget, start: { after: number | undefined; first: RunEventsResponse }, out: ServerResponse): Promise<void> {
    this.streaming.add(out);
    out.on('close', () => this.streaming.delete(out));
    // Ended by shutdown or closed by the client: either way nothing more may be written.
    const closed = () => out.writableEnded || out.destroyed;
    let after = start.after;
    let page: RunEventsResponse | undefined = start.first;
    let lastWrite = Date.now();
    while (!closed()) {
      page ??= await this.read(target, after);
      if (closed()) break;
      for (const item of page.events) {
        out.write(`id: ${item.event_index}\nevent: run_event\ndata: ${JSON.stringify(item)}\n\n`);
        after = item.event_index;
        lastWrite = Date.now();
      }
      if (page.events.length === 0) {
        if (await this.isFinished(target)) {
          const drained = await this.read(target, after);
          if (drained.events.length === 0) break;
          page = drained;
          continue;
        }
        if (closed()) break;
        if (Date.now() - lastWrite > HEARTBEAT_MS) {
          out.write(': keep-alive\n\n');
          lastWrite = Date.now();
        }
        await sleep(POLL_MS);
      }
      page = undefined;
    }
    if (!closed()) out.end('event: end\ndata: {}\n\n');
  }

  private read(target: StreamTarget, after: number | undefined): Promise<RunEventsResponse> {
    return this.services.request<RunEventsResponse>(
      RunsPatterns.ListRunEvents,
      {
        user_id: target.userId,
        agent_id: target.agentId,
        run_id: target.runId,
        limit: BATCH,
        ...(after === undefined ? {} : { after_index: after }),
      },
      target.requestId,
    );
  }

  private async isFinished(target: StreamTarget): Promise<boolean> {
    const { run } = await this.services.request<RunResponse>(
      RunsPatterns.GetRun,
      { user_id: target.userId, agent_id: target.agentId, run_id: target.runId },
      target.requestId,
    );
    return run.is_finished;
  }
}

function parseLastEventId(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,15}$/.test(value)) {
    const message = 'Last-Event-ID must be the index of an event this stream sent';
    throw new ValidationFailedError(message, [{ field: 'Last-Event-ID', message }]);
  }
  return Number(value);
}
