import { Body, Controller, Get, HttpCode, Post, Req, Res, UseGuards, ValidationPipe } from '@nestjs/common';
import { ToolCatalogue } from '@aas/contracts';
import { ValidationFailedError, flattenValidationErrors } from '@aas/problem-details';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RuntimeEnv } from '../config/runtime.env';
import { LineWriter } from '../lines/line-writer';
import { RunExecutor } from '../run/run-executor';
import { RunCancelled } from '../run/run-stop';
import { McpServers } from '../tools/mcp-servers';
import { ToolCatalogueService } from '../tools/tool-catalogue.service';
import { ActiveRuns } from './active-runs';
import { DispatchSignatureGuard } from './dispatch-signature.guard';
import { RunDispatchBody } from './run-dispatch.body';

// Fields a later protocol version adds are ignored, as version 1 runtimes ignore what they do not know.
const dispatchPipe = new ValidationPipe({
  transform: true,
  exceptionFactory: (errors) => {
    const fieldErrors = flattenValidationErrors(errors);
    return new ValidationFailedError(fieldErrors.map((e) => e.message).join('; ') || 'the dispatch is not valid', fieldErrors);
  },
});

@Controller()
export class DispatchController {
  constructor(
    private readonly executor: RunExecutor,
    private readonly active: ActiveRuns,
    private readonly env: RuntimeEnv,
    private readonly mcp: McpServers,
    private readonly catalogue: ToolCatalogueService,
  ) {}

  /** One run: its lines are streamed as NDJSON while it goes; closing the connection cancels it. */
  @Post()
  @UseGuards(DispatchSignatureGuard)
  async dispatch(@Body(dispatchPipe) dispatch: RunDispatchBody, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    this.active.admit();
    const controller = new AbortController();
    const signature = request.headers['x-service-signature'];
    const writer = new LineWriter((chunk) => reply.raw.write(chunk), [
      this.env.MODEL_API_KEY,
      this.env.AGENT_RUNTIME_SECRET,
      typeof signature === 'string' ? signature : undefined,
      ...this.mcp.secrets,
    ]);
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
    reply.raw.flushHeaders();
    reply.raw.on('close', () => {
      if (!reply.raw.writableEnded) controller.abort(new RunCancelled());
    });
    await this.active.track(controller, this.executor.execute(dispatch, writer, controller));
    if (!reply.raw.destroyed) reply.raw.end();
  }

  @Get('tools')
  @HttpCode(200)
  tools(): ToolCatalogue {
    return { tools: this.catalogue.entries() };
  }
}
