import { admissionLimits, perUserLimitReachesCapacity } from './admission-limits';

describe('admissionLimits', () => {
  it('reads 0 as no limit, and keeps any other value', () => {
    expect(admissionLimits(10, 5)).toEqual({ perUser: 10, perAgent: 5 });
    expect(admissionLimits(0, 5)).toEqual({ perUser: null, perAgent: 5 });
    expect(admissionLimits(3, 0)).toEqual({ perUser: 3, perAgent: null });
  });

  it('says when one user may hold every worker of a process', () => {
    expect(perUserLimitReachesCapacity(admissionLimits(10, 5), 20)).toBe(false);
    expect(perUserLimitReachesCapacity(admissionLimits(20, 5), 20)).toBe(true);
    expect(perUserLimitReachesCapacity(admissionLimits(0, 5), 20)).toBe(true);
  });
});
