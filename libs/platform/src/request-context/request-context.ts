import { AsyncLocalStorage } from 'node:async_hooks';

const requestIds = new AsyncLocalStorage<string | undefined>();

/**
 * Runs `fn` as part of the API request `requestId` (undefined: of none): the logs it writes, the
 * requests it sends to other services, the events it records and the jobs it queues carry that id.
 */
export function runInRequestContext<T>(requestId: string | undefined, fn: () => T): T {
  return requestIds.run(requestId, fn);
}

/** The id of the API request the current code is handling, directly or through a queued job. */
export function currentRequestId(): string | undefined {
  return requestIds.getStore();
}
