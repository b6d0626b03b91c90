import { LOWEST_PRIORITY, jobPriority, runQueuedJobPriority } from './job-priority';

describe('jobPriority', () => {
  it('puts the runs of a user with fewer executing runs first, and never uses 0 (BullMQ: before every prioritised job)', () => {
    expect(jobPriority(0)).toBe(1);
    expect(jobPriority(9)).toBe(10);
    expect(jobPriority(0)).toBeLessThan(jobPriority(9));
    expect(jobPriority(-1)).toBe(1);
    expect(jobPriority(10_000_000)).toBe(LOWEST_PRIORITY);
  });
});

describe('runQueuedJobPriority', () => {
  it('takes the priority admission recorded, and nothing from a payload without a valid one', () => {
    expect(runQueuedJobPriority({ run_id: 'r', priority: 3 })).toBe(3);
    expect(runQueuedJobPriority({ run_id: 'r' })).toBeUndefined();
    for (const priority of [0, -2, 1.5, '3', LOWEST_PRIORITY + 1, null]) {
      expect(runQueuedJobPriority({ run_id: 'r', priority })).toBeUndefined();
    }
  });
});
