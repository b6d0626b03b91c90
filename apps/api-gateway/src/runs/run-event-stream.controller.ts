import { Controller, Get, Headers, Logger, Param, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { REQUEST_ID_HEADER } from '@aas/platform';
import { CallerId, RequestId } from '../auth/caller';
import { ApiProblems } from '../openapi/api-problems.decorator';
import { RunEventStream } from './run-event-stream';

@ApiTags('Runs')
@ApiParam({ name: 'agent_id', format: 'uuid' })
@Controller('v1/agents/:agent_id/runs/:run_id/events/stream')
export class RunEventStreamController {
  private readonly logger = new Logger(RunEventStreamController.name);

  constructor(private readonly stream: RunEventStream) {}

  @Get()
  @ApiOperation({ summary: "A run's events as they are recorded (Server-Sent Events); resumes after Last-Event-ID" })
  @ApiProduces('text/event-stream')
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'Resume after this event index' })
  @ApiOkResponse({
    description: 'An `run_event` per run event (SSE id = event_index, data = RunEventItem), then `end` once the run is finished',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  @ApiProblems(400, 401, 404)
  async events(
    @CallerId() userId: string,
    @RequestId() requestId: string,
    @Param('agent_id') agentId: string,
    @Param('run_id') runId: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const target = { userId, agentId, runId, requestId };
    const start = await this.stream.open(target, lastEventId);
    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      [REQUEST_ID_HEADER]: request.id,
    });
    await this.stream.pump(target, start, reply.raw).catch((error: Error) => {
      // Headers are sent: the client sees the stream end and reconnects with Last-Event-ID.
      this.logger.warn({ req_id: requestId, run_id: runId, err: error }, 'run event stream ended early');
      reply.raw.end();
    });
  }
}
