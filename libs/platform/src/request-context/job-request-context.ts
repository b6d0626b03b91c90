import type { Job } from 'bullmq';
import { currentRequestId, runInRequestContext } from './request-context';

/** Job data may carry the id of the API request that caused the job, under this key. */
export interface RequestTraced {
  request_id?: string;
}

/** `data` with the current request id added, for a job queued now. */
export function withRequestId<T extends object>(data: T): T & RequestTraced {
  const requestId = currentRequestId();
  return requestId ? { ...data, request_id: requestId } : data;
}

type JobProcessor<R> = (job: Job, token?: string) => Promise<R>;

/** A processor that handles each job in the request context its data carries. */
export function inJobRequestContext<R>(processor: JobProcessor<R>): JobProcessor<R> {
  return (job, token) => runInRequestContext(requestIdOf(job), () => processor(job, token));
}

/** For a WorkerHost's `process(job)`: the job is handled in the request context its data carries. */
export function InJobRequestContext(): MethodDecorator {
  return (_target, _key, descriptor: PropertyDescriptor) => {
    const process = descriptor.value as JobProcessor<unknown>;
    descriptor.value = function (this: unknown, job: Job, token?: string) {
      return inJobRequestContext((j, t) => process.call(this, j, t))(job, token);
    };
    return descriptor;
  };
}

function requestIdOf(job: Job): string | undefined {
  const id = (job.data as RequestTraced | undefined)?.request_id;
  return typeof id === 'string' ? id : undefined;
}
