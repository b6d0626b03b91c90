import { describeCron } from './describe-cron';
import { unixToQuartz } from './unix-to-quartz';

describe('unixToQuartz', () => {
  it.each([
    ['*/5 * * * *', '0 */5 * * * ? *'],
    ['30 9 * * 1-5', '0 30 9 ? * 2-6 *'],
    ['0 0 * * 0', '0 0 0 ? * 1 *'],
    ['0 0 * * 7', '0 0 0 ? * 1 *'],
    ['0 0 * * 6,0', '0 0 0 ? * 7,1 *'],
    ['0 0 * * 5-7', '0 0 0 ? * 6-7,1 *'],
    ['0 0 * * 0-6', '0 0 0 * * ? *'],
    ['0 0 * * */2', '0 0 0 ? * */2 *'],
    ['0 0 * * 1-5/2', '0 0 0 ? * 2-6/2 *'],
    ['0 8 * * mon-fri', '0 0 8 ? * MON-FRI *'],
    ['15 14 1 * *', '0 15 14 1 * ? *'],
    ['0 0 1 jan *', '0 0 0 1 JAN ? *'],
    ['0 0 * * *', '0 0 0 * * ? *'],
    ['@daily', '0 0 0 * * ? *'],
    ['@weekly', '0 0 0 ? * 1 *'],
    ['  5 4 * * *  ', '0 5 4 * * ? *'],
  ])('reads %j as %j', (unix, quartz) => {
    expect(unixToQuartz(unix)).toEqual({ quartz });
  });

  it('says so when both day fields are restricted, which Quartz cannot express', () => {
    expect(unixToQuartz('0 0 13 * 5')).toEqual({ problem: expect.stringContaining('which Quartz cannot express') });
  });

  it('refuses a day of the week Unix cron does not have', () => {
    expect(unixToQuartz('0 0 * * 8')).toEqual({ problem: expect.stringContaining('"8"') });
    expect(unixToQuartz('0 0 * * 5-2')).toEqual({ problem: expect.stringContaining('"5-2"') });
  });

  it('leaves alone what is not 5 fields', () => {
    expect(unixToQuartz('0 30 9 ? * MON-FRI *')).toBeNull();
    expect(unixToQuartz('0 0 9 *')).toBeNull();
    expect(unixToQuartz('')).toBeNull();
  });

  it('converts to what the plain-English description reads the same way', () => {
    const converted = unixToQuartz('30 9 * * 1-5') as { quartz: string };
    expect(describeCron(converted.quartz)).toBe('At 09:30, Monday through Friday');
    expect(describeCron((unixToQuartz('0 0 * * 0') as { quartz: string }).quartz)).toBe('At 00:00, only on Sunday');
  });
});

describe('describeCron', () => {
  it('describes a 7-field Quartz expression, and nothing else', () => {
    expect(describeCron('0 0 0 L * ? *')).toBe('At 00:00, on the last day of the month');
    expect(describeCron('*/5 * * * *')).toBeNull();
    expect(describeCron('0 0 0 ? * FOO *')).toBeNull();
  });
});
