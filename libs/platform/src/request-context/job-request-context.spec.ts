import type { Job } from 'bullmq';
import { InJobRequestContext, inJobRequestContext, withRequestId } from './job-request-context';
import { currentRequestId, runInRequestContext } from './request-context';

const jobWith = (data: object): Job => ({ data }) as Job;

describe('request context of queued jobs', () => {
  it('adds the current request id to the data of a job queued inside a request, and nothing outside one', () => {
    expect(runInRequestContext('req-1', () => withRequestId({ run_id: 'r' }))).toEqual({ run_id: 'r', request_id: 'req-1' });
    expect(withRequestId({ run_id: 'r' })).toEqual({ run_id: 'r' });
  });

  it('handles a job in the request context its data carries, across awaits', async () => {
    const seen: Array<string | undefined> = [];
    const processor = inJobRequestContext(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      seen.push(currentRequestId());
    });
    await Promise.all([processor(jobWith({ request_id: 'a' })), processor(jobWith({ request_id: 'b' })), processor(jobWith({}))]);
    expect(seen.sort()).toEqual(['a', 'b', undefined]);
  });

  it('does not let a job without an id inherit the context it was started from', async () => {
    const processor = inJobRequestContext(async () => currentRequestId());
    await expect(runInRequestContext('outer', () => processor(jobWith({})))).resolves.toBeUndefined();
    await expect(runInRequestContext('outer', () => processor(jobWith({ request_id: 42 })))).resolves.toBeUndefined();
  });

  it('wraps a decorated process method, keeping its receiver', async () => {
    class Consumer {
      readonly name = 'consumer';
      @InJobRequestContext()
      async process(job: Job): Promise<string> {
        return `${this.name}:${currentRequestId()}:${(job.data as { n: number }).n}`;
      }
    }
    await expect(new Consumer().process(jobWith({ request_id: 'req-9', n: 3 }))).resolves.toBe('consumer:req-9:3');
  });
});
