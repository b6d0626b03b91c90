import { cooldownSchedule, endpointHealthOf } from './circuit-breaker';
import { SendResult } from '../outbound/webhook-sender';

const result = (statusCode: number | null, error: string | null = null): SendResult => ({
  statusCode,
  error,
  responseBody: null,
  durationMs: 5,
  requestHeaders: {},
  responseHeaders: null,
});

describe(endpointHealthOf.name, () => {
  it.each([
    [result(null, 'no answer within 15000 ms'), 'failed'],
    [result(null, 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:1'), 'failed'],
    [result(null, 'refused: 10.0.0.1 is a private address'), 'failed'],
    [result(500), 'failed'],
    [result(503), 'failed'],
    [result(599), 'failed'],
  ])('counts %j against the endpoint', (sent, health) => {
    expect(endpointHealthOf(sent)).toBe(health);
  });

  it.each([200, 204, 301, 400, 404, 410, 429, 499])('takes a %i as an endpoint that answers (the delivery still retries on its own)', (status) => {
    expect(endpointHealthOf(result(status))).toBe('answered');
  });
});

describe(cooldownSchedule.name, () => {
  it('doubles the cool-down from the base up to the cap, which it ends on', () => {
    expect(cooldownSchedule({ cooldownMs: 60_000, maxCooldownMs: 600_000 })).toEqual([60_000, 120_000, 240_000, 480_000, 600_000]);
  });

  it('is the base alone when the cap is the base', () => {
    expect(cooldownSchedule({ cooldownMs: 5_000, maxCooldownMs: 5_000 })).toEqual([5_000]);
  });

  it('stops exactly on a cap that is a power of two times the base', () => {
    expect(cooldownSchedule({ cooldownMs: 100, maxCooldownMs: 800 })).toEqual([100, 200, 400, 800]);
  });

  it('stays short for the widest settings (1 day from 100 ms)', () => {
    const schedule = cooldownSchedule({ cooldownMs: 100, maxCooldownMs: 86_400_000 });
    expect(schedule.length).toBeLessThanOrEqual(21);
    expect(schedule[schedule.length - 1]).toBe(86_400_000);
  });

  it('refuses a cap below the base, and a base that is not positive', () => {
    expect(() => cooldownSchedule({ cooldownMs: 1_000, maxCooldownMs: 500 })).toThrow(RangeError);
    expect(() => cooldownSchedule({ cooldownMs: 0, maxCooldownMs: 500 })).toThrow(RangeError);
  });
});
