import { failedUncommitted } from './retry-uncommitted';

const driverFailure = (code: string, message = 'failed') => Object.assign(new Error(message), { driverError: Object.assign(new Error(message), { code }) });

describe('failedUncommitted', () => {
  it('counts a pool wait past the connect timeout, a deadlock and a serialization failure: nothing was written', () => {
    expect(failedUncommitted(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(failedUncommitted(driverFailure('40P01', 'deadlock detected'))).toBe(true);
    expect(failedUncommitted(Object.assign(new Error('could not serialize access'), { code: '40001' }))).toBe(true);
  });

  it('does not count a dropped connection, whose COMMIT may have landed, nor a refused statement', () => {
    expect(failedUncommitted(new Error('Connection terminated unexpectedly'))).toBe(false);
    expect(failedUncommitted(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(false);
    expect(failedUncommitted(driverFailure('23505', 'duplicate key value violates unique constraint'))).toBe(false);
    expect(failedUncommitted('timeout exceeded when trying to connect')).toBe(false);
  });
});
