import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { QueueNames, parseJob } from '@aas/contracts';
import { DrainDeadlineAware, InJobRequestContext, WORKER_LOCK } from '@aas/platform';
import { Job, UnrecoverableError } from 'bullmq';
import { RunsEnv } from '../config/runs.env';
import { RunExecutor } from './run-executor';

/**
 * Runs queued runs. BullMQ hands each job to one worker and gives a job whose
 * worker died to another after the stall interval; the executor then ends that
 * run in error rather than leaving it in progress.
 */
@Processor(QueueNames.RunsExecution, { ...WORKER_LOCK })
export class RunExecutionProcessor extends WorkerHost implements OnApplicationBootstrap, DrainDeadlineAware {
  constructor(
    private readonly executor: RunExecutor,
    private readonly config: ConfigService<RunsEnv, true>,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.get('RUN_WORKER_CONCURRENCY', { infer: true });
  }

  /** On shutdown, runs still going when the drain deadline passes end in error instead of holding the pod. */
  onDrainDeadline(): void {
    this.executor.abortAll();
  }

  @InJobRequestContext()
  async process(job: Job): Promise<void> {
    await this.executor.execute(parseJob(QueueNames.RunsExecution, job).data.run_id);
  }

  /** A run whose execution failed on every attempt ends in error instead of staying in progress. */
  @OnWorkerEvent('failed')
  async onFailed(job: Job | undefined, error: Error): Promise<void> {
    // A job whose data names no run (refused by parseJob) has no run to end.
    if (!job || job.attemptsMade < (job.opts.attempts ?? 1) || error instanceof UnrecoverableError) return;
    await this.executor.abandon(parseJob(QueueNames.RunsExecution, job).data.run_id, `the run could not be executed: ${error.message}`);
  }
}
