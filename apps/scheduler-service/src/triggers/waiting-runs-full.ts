import { ProblemDetailDto } from '@aas/contracts';
import { TooManyRequestsError } from '@aas/problem-details';

/** How long an inbound call refused for its owner's waiting runs is told to wait: runs leave the queue as others end. */
export const WAITING_RUNS_RETRY_AFTER_SECONDS = 30;

/** An inbound start refused because its owner has the most runs waiting: waiting helps, so it is a 429 with Retry-After. */
export function waitingRunsFull(problem: ProblemDetailDto): TooManyRequestsError | undefined {
  if (problem.quota !== 'waiting_runs_per_user') return undefined;
  return new TooManyRequestsError(`${problem.detail}; retry after ${WAITING_RUNS_RETRY_AFTER_SECONDS} s`, WAITING_RUNS_RETRY_AFTER_SECONDS);
}
