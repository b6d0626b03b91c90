import { periodsAt } from './budget-periods';

describe(periodsAt.name, () => {
  it('counts UTC days and calendar months', () => {
    expect(periodsAt(new Date('2026-03-01T00:30:00+02:00'))).toEqual({
      day: '2026-02-28',
      month: '2026-02-01',
      dayStartedAt: new Date('2026-02-28T00:00:00Z'),
      monthStartedAt: new Date('2026-02-01T00:00:00Z'),
    });
    expect(periodsAt(new Date('2026-12-31T23:59:59.999Z'))).toMatchObject({ day: '2026-12-31', month: '2026-12-01' });
  });
});
