import 'reflect-metadata';
import { IsBoolean, IsString } from 'class-validator';
import { CommonEnv, ServiceEnv } from './common.env';
import { EnvBoolean, EnvList } from './env-decorators';
import { validateEnv } from './validate-env';

class TestEnv extends ServiceEnv {
  override HEALTH_PORT: number = 4000;

  @EnvBoolean()
  @IsBoolean()
  FLAG: boolean = false;

  @EnvList()
  @IsString({ each: true })
  LIST: string[] = [];
}

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected a throw');
}

describe('validateEnv', () => {
  it('applies the defaults to an empty environment', () => {
    const env = validateEnv(TestEnv, {});
    expect(env).toBeInstanceOf(TestEnv);
    expect(env.REDIS_PREFIX).toBe('aas');
    expect(env.RPC_TIMEOUT_MS).toBe(10_000);
    expect(env.HEALTH_PORT).toBe(4000);
    expect(env.FLAG).toBe(false);
    expect(env.LIST).toEqual([]);
  });

  it('converts numeric strings to numbers', () => {
    const env = validateEnv(TestEnv, { RPC_TIMEOUT_MS: '2500', HEALTH_PORT: '8081' });
    expect(env.RPC_TIMEOUT_MS).toBe(2500);
    expect(env.HEALTH_PORT).toBe(8081);
  });

  it('treats an empty variable as unset', () => {
    const env = validateEnv(CommonEnv, { REDIS_PREFIX: '', RPC_TIMEOUT_MS: '', LOG_LEVEL: '' });
    expect(env.REDIS_PREFIX).toBe('aas');
    expect(env.RPC_TIMEOUT_MS).toBe(10_000);
    expect(env.LOG_LEVEL).toBe('info');
  });

  it('lists every bad variable in one error', () => {
    const message = errorOf(() =>
      validateEnv(CommonEnv, { REDIS_URL: 'http://x', LOG_LEVEL: 'loud', RPC_TIMEOUT_MS: 'soon' }),
    );
    expect(message).toMatch(/^Invalid configuration/);
    expect(message).toContain('REDIS_URL');
    expect(message).toContain('REDIS_URL must be a redis:// or rediss:// URL (got a value of 8 characters, not shown)');
    expect(message).toContain('LOG_LEVEL');
    expect(message).toContain('"loud"');
    expect(message).toContain('RPC_TIMEOUT_MS');
  });

  it('never prints the value of a malformed secret or connection URL', () => {
    const message = errorOf(() =>
      validateEnv(TestEnv, { DATABASE_URL: 'mysql://admin:hunter2@db/x', REDIS_URL: 'http://:s3cret@redis', LOG_LEVEL: 'loud' }),
    );
    expect(message).toContain('DATABASE_URL must be a postgres:// URL (got a value of 26 characters, not shown)');
    expect(message).not.toContain('hunter2');
    expect(message).not.toContain('s3cret');
    expect(message).toContain('"loud"');
  });

  it('rejects numbers outside their range', () => {
    const message = errorOf(() => validateEnv(ServiceEnv, { HEALTH_PORT: '70000', DATABASE_POOL_SIZE: '0' }));
    expect(message).toContain('HEALTH_PORT');
    expect(message).toContain('DATABASE_POOL_SIZE');
  });

  it.each([
    ['true', true],
    ['false', false],
  ])('reads boolean %s', (raw, expected) => {
    expect(validateEnv(TestEnv, { FLAG: raw }).FLAG).toBe(expected);
  });

  it('rejects a boolean spelled yes', () => {
    expect(errorOf(() => validateEnv(TestEnv, { FLAG: 'yes' }))).toContain('FLAG');
  });

  it('splits a list on commas, trimming and dropping empty items', () => {
    expect(validateEnv(TestEnv, { LIST: 'a, b,,c' }).LIST).toEqual(['a', 'b', 'c']);
  });
});
