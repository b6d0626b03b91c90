import { clientIdempotencyKey, scheduleFireKey } from './idempotency-keys';

describe('run idempotency key namespaces', () => {
  it('never lets a client key equal a fire key', () => {
    const fireKey = scheduleFireKey('7d4f7c8e-5d7b-4a8e-9a55-2c8f3f1e6b10', '2026-01-01T00:00:00Z');
    expect(clientIdempotencyKey(fireKey)).not.toBe(fireKey);
    expect(clientIdempotencyKey('a')).not.toBe(clientIdempotencyKey('b'));
  });

  it('keys a fire by its instant, whatever the notation of its time', () => {
    const agent = '7d4f7c8e-5d7b-4a8e-9a55-2c8f3f1e6b10';
    expect(scheduleFireKey(agent, '2026-01-01T01:00:00+01:00')).toBe(scheduleFireKey(agent, '2026-01-01T00:00:00.000Z'));
    expect(scheduleFireKey(agent, '2026-01-01T00:00:01Z')).not.toBe(scheduleFireKey(agent, '2026-01-01T00:00:00Z'));
  });
});
