import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Transaction, Transactions } from '@aas/platform';
import { RunsEnv } from '../config/runs.env';
import { AdmissionLimits, admissionLimits, perUserLimitReachesCapacity } from './admission-limits';
import { AdmissionLockMode, AdmissionStore } from './admission.store';
import { AdmittedRun, admitUser } from './admit-user';

/** How often every replica looks for waiting runs that fit: the safety net under the signals. */
export const ADMISSION_SWEEP_MS = 1000;

/**
 * Admits waiting runs for execution within RUN_CONCURRENCY_PER_USER and RUN_CONCURRENCY_PER_AGENT
 * (docs/quotas-and-limits.md). Runs are admitted in the transaction that accepts them when there is
 * room (`admitIn`); otherwise when a run of the user ends (`kick`, on the replica that ended it),
 * and by a sweep every ADMISSION_SWEEP_MS on every replica, so a run never waits forever for a
 * signal that was lost with its process.
 */
@Injectable()
export class RunAdmission implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RunAdmission.name);
  readonly limits: AdmissionLimits;
  /** Users whose admission runs in this process, and those to run again once it is done. */
  private readonly admitting = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly store: AdmissionStore,
    private readonly transactions: Transactions,
    config: ConfigService<RunsEnv, true>,
  ) {
    this.limits = admissionLimits(
      config.get('RUN_CONCURRENCY_PER_USER', { infer: true }),
      config.get('RUN_CONCURRENCY_PER_AGENT', { infer: true }),
    );
    if (perUserLimitReachesCapacity(this.limits, config.get('RUN_WORKER_CONCURRENCY', { infer: true }))) {
      this.logger.warn(
        'RUN_CONCURRENCY_PER_USER is 0 (no limit) or not below RUN_WORKER_CONCURRENCY: with one replica, one user can hold every worker ' +
          'and delay the runs of all others (docs/quotas-and-limits.md)',
      );
    }
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.sweep(), ADMISSION_SWEEP_MS);
    this.timer.unref();
    this.sweep();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await Promise.allSettled([this.sweeping, ...this.admitting.values()]);
  }

  /**
   * Inside the transaction that accepted runs of these users: admits what fits, the new runs
   * included. Users are locked in id order, so two batches of the same users never deadlock.
   */
  async admitIn(tx: Transaction, userIds: string[]): Promise<AdmittedRun[]> {
    const admitted: AdmittedRun[] = [];
    for (const userId of [...new Set(userIds)].sort()) admitted.push(...(await admitUser(this.store, tx, userId, this.limits))!);
    return admitted;
  }

  /**
   * Inside the transaction that accepts runs of these users: takes their admission locks (id order, as
   * admitIn; held to the commit) and counts each one's waiting runs up to `max`, so that two starts
   * of one user, on any replica, never both see room for the last waiting run.
   */
  async countWaitingIn(tx: Transaction, userIds: string[], max: number): Promise<Map<string, number>> {
    const users = [...new Set(userIds)].sort();
    for (const userId of users) await this.store.lockUser(tx, userId, 'wait');
    return this.store.countWaiting(tx, users, max);
  }

  /**
   * A run of the user ended (or was deleted) and freed room: admits in a transaction of its own.
   * Calls for one user while its admission runs here make one more admission after it, since that
   * one may have counted the ended run as executing.
   */
  kick(userId: string): void {
    if (this.stopped) return;
    if (this.admitting.has(userId)) {
      this.again.add(userId);
      return;
    }
    const admission = this.admit(userId, 'wait')
      .catch((error: Error) => this.logger.warn(`admitting runs of user ${userId}: ${error.message}; the sweep retries`))
      .finally(() => {
        this.admitting.delete(userId);
        if (this.again.delete(userId)) this.kick(userId);
      });
    this.admitting.set(userId, admission);
  }

  /** Every user with waiting runs and room; a user whose admission is under way elsewhere is left to it. */
  private sweep(): void {
    if (this.stopped || this.sweeping) return;
    this.sweeping = (async () => {
      for (const userId of await this.store.usersToAdmit(this.limits)) {
        if (this.stopped) return;
        if (!this.admitting.has(userId)) await this.admit(userId, 'skip-if-busy');
      }
    })()
      .catch((error: Error) => this.logger.warn(`admission sweep: ${error.message}; retrying in ${ADMISSION_SWEEP_MS} ms`))
      .finally(() => (this.sweeping = undefined));
  }

  private async admit(userId: string, lockMode: AdmissionLockMode): Promise<void> {
    // Its run.queued events are published once it commits (the store registers the relay's kick).
    await this.transactions.run((tx) => admitUser(this.store, tx, userId, this.limits, lockMode));
  }
}
