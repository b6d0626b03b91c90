import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { HandlesRequest, RecordRunEndsMessage, RecordRunEndsResponse, SchedulerPatterns } from '@aas/contracts';
import { RunEnds } from './run-ends';

/**
 * runs-service asks here, before runs' ends become visible, that their effects be committed (the
 * schedule's unfinished run and failure count; the event triggers' starts and last_triggered_at).
 * Answered once every end of the batch is applied; a failure fails the batch, which runs-service retries.
 */
@Controller()
export class RunEndsHandlers {
  constructor(private readonly ends: RunEnds) {}

  @HandlesRequest(SchedulerPatterns.RecordRunEnds)
  async recordRunEnds(@Payload() message: RecordRunEndsMessage): Promise<RecordRunEndsResponse> {
    await Promise.all(message.ends.map((end) => this.ends.apply(end.lifecycle)));
    return { applied: message.ends.length };
  }
}
