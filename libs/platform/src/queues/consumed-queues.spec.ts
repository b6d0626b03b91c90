import { queuesConsumedBy } from '@aas/contracts';
import { consumedQueuesProblem } from './consumed-queues';

describe('consumedQueuesProblem', () => {
  const expected = queuesConsumedBy('runs');

  it("accepts exactly the app's queues, one worker each, in any order", () => {
    expect(expected).toEqual(['runs-events', 'runs-execution', 'runs-maintenance', 'runs-bulk-actions']);
    expect(consumedQueuesProblem('runs', expected, [...expected].reverse())).toBeUndefined();
  });

  it('names a queue without a worker, one with two, and one of another app', () => {
    expect(consumedQueuesProblem('runs', expected, ['runs-events', 'runs-execution', 'runs-bulk-actions'])).toBe('runs: no worker for runs-maintenance');
    expect(consumedQueuesProblem('runs', expected, [...expected, 'runs-execution'])).toBe('runs: two workers or more for runs-execution');
    expect(consumedQueuesProblem('runs', expected, [...expected, 'webhook-deliveries'])).toBe(
      'runs: workers for queues it does not consume: webhook-deliveries',
    );
  });

  it('gives every queue exactly one consuming app', () => {
    const all = ['runs', 'scheduler', 'webhooks', 'agents'].flatMap(queuesConsumedBy);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toHaveLength(10);
  });
});
