import { Controller, Get, Headers, Param, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import { hashApiKey } from '@aas/contracts';
import type { FastifyReply } from 'fastify';
import { REQUEST_ID_HEADER } from '@aas/platform';
import { AuthenticatedRequest, Caller } from '../caller/caller';
import { ApiProblems } from '../openapi/api-problems.decorator';
import { StreamOwner } from './streams/live-stream';
import { RunEventStreams } from './streams/run-event-streams';

@ApiTags('Runs')
@ApiParam({ name: 'agent_id', format: 'uuid' })
@Controller('v1/agents/:agent_id/runs/:run_id/events/stream')
export class RunEventStreamController {
  constructor(private readonly streams: RunEventStreams) {}

  @Get()
  @ApiOperation({
    summary:
      "A run's events as they are recorded (Server-Sent Events, pushed); resumes after Last-Event-ID. At most STREAMS_PER_USER (20) open per user (429 over it)",
  })
  @ApiProduces('text/event-stream')
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'Resume after this event index' })
  @ApiOkResponse({
    description: 'An `run_event` per run event (SSE id = event_index, data = RunEventItem), then `end` once the run is finished',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  @ApiProblems(400, 401, 404, 429)
  async events(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Param('run_id') runId: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() request: AuthenticatedRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const target = { userId: caller.userId, agentId, runId, requestId: caller.requestId };
    const opened = await this.streams.openStream(target, ownerOf(request), lastEventId, request.announcementsAtAuth ?? -1);
    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      [REQUEST_ID_HEADER]: request.id,
    });
    // The client learns at once that its stream is open, even before the run's first event.
    reply.raw.flushHeaders();
    this.streams.start(opened, reply.raw);
  }
}

/** The credential the stream was opened with, to end it when that credential ends. */
function ownerOf(request: AuthenticatedRequest): StreamOwner {
  const caller = request.caller!;
  if (caller.session_id) {
    return {
      userId: caller.user_id,
      sessionId: caller.session_id,
      sessionTokenHash: caller.session_token_hash,
      sessionExpiresAt: caller.session_expires_at ? Date.parse(caller.session_expires_at) : undefined,
    };
  }
  return { userId: caller.user_id, keyId: caller.key_id, keyHash: hashApiKey(String(request.headers['x-api-key'])) };
}
