import { UnrecoverableError } from 'bullmq';
import { plainToInstance } from 'class-transformer';
import { ValidationError, validateSync } from 'class-validator';
import { JOB_REGISTRY, RegisteredJob } from './job-registry';
import { QueueName } from './queues';

/** What a consumer needs of a BullMQ job to check it. */
export interface JobLike {
  id?: string;
  name: string;
  data: unknown;
}

/**
 * A job of `queue` checked against JOB_REGISTRY at the consumer's edge. A job of a name the queue does
 * not carry, or whose data does not match, would fail the same way on every attempt: it fails for good
 * (BullMQ's UnrecoverableError) with a message naming the job and each wrong field, and is kept with the
 * failed jobs for a look.
 */
export function parseJob<Q extends QueueName>(queue: Q, job: JobLike): RegisteredJob<Q> {
  const payloads: Record<string, new () => object> = JOB_REGISTRY[queue];
  const payload = Object.hasOwn(payloads, job.name) ? payloads[job.name] : undefined;
  if (!payload) throw new UnrecoverableError(`job ${job.id} on ${queue}: "${job.name}" is not a job of this queue`);
  if (typeof job.data !== 'object' || job.data === null || Array.isArray(job.data)) {
    throw new UnrecoverableError(`job ${job.id} (${job.name}) on ${queue}: its data is not an object`);
  }
  const errors = validateSync(plainToInstance(payload, job.data), { forbidUnknownValues: false });
  if (errors.length > 0) throw new UnrecoverableError(`job ${job.id} (${job.name}) on ${queue}: ${describe(errors).join('; ')}`);
  return { name: job.name, data: job.data } as RegisteredJob<Q>;
}

function describe(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    return [...Object.values(error.constraints ?? {}), ...describe(error.children ?? [], field)];
  });
}
