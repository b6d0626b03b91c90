import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { METRIC_PREFIX } from '@aas/platform';
import { ServiceUnavailableError } from '@aas/problem-details';
import { Gauge, Registry } from 'prom-client';
import { RuntimeEnv } from '../config/runtime.env';
import { shutdownStop } from '../run/run-stop';

/**
 * The runs this process executes. On shutdown it takes no more, lets those in flight finish within
 * SHUTDOWN_DRAIN_MS, then aborts the rest, which end with a `failed` line naming the shutdown.
 */
@Injectable()
export class ActiveRuns implements BeforeApplicationShutdown {
  private readonly logger = new Logger(ActiveRuns.name);
  private readonly runs = new Map<AbortController, Promise<void>>();
  private draining = false;

  constructor(
    private readonly env: RuntimeEnv,
    registry: Registry,
  ) {
    const runs = this.runs;
    new Gauge({
      name: `${METRIC_PREFIX}agent_runtime_runs_in_flight`,
      help: 'Runs this agent runtime process is executing',
      registers: [registry],
      collect() {
        this.set(runs.size);
      },
    });
  }

  get isDraining(): boolean {
    return this.draining;
  }

  get count(): number {
    return this.runs.size;
  }

  /** Refuses a run while draining or at AGENT_MAX_CONCURRENT_RUNS (503: runs-service records the reason). */
  admit(): void {
    if (this.draining) throw new ServiceUnavailableError('the agent runtime is shutting down and takes no new runs');
    if (this.runs.size >= this.env.AGENT_MAX_CONCURRENT_RUNS) {
      throw new ServiceUnavailableError(`the agent runtime is executing AGENT_MAX_CONCURRENT_RUNS (${this.env.AGENT_MAX_CONCURRENT_RUNS}) runs`);
    }
  }

  track(controller: AbortController, run: Promise<void>): Promise<void> {
    const settled = run.finally(() => this.runs.delete(controller));
    this.runs.set(controller, settled);
    return settled;
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.draining = true;
    if (this.runs.size === 0) return;
    this.logger.log(`draining ${this.runs.size} run(s) for up to ${this.env.SHUTDOWN_DRAIN_MS} ms`);
    let timer: NodeJS.Timeout | undefined;
    const drained = Promise.all(this.runs.values()).then(() => true);
    const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), this.env.SHUTDOWN_DRAIN_MS)));
    const finished = await Promise.race([drained, timedOut]);
    clearTimeout(timer);
    if (finished) return;
    for (const controller of this.runs.keys()) controller.abort(shutdownStop(this.env.SHUTDOWN_DRAIN_MS));
    await Promise.all(this.runs.values());
  }
}
