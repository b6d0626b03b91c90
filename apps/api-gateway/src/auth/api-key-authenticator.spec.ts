import 'reflect-metadata';
import { ConfigService } from '@nestjs/config';
import { ServiceClient, RedisKeyspace } from '@aas/platform';
import { UnauthorizedError } from '@aas/problem-details';
import { generateApiKey } from '@aas/contracts';
import Redis from 'ioredis';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { GatewayEnv } from '../config/gateway.env';
import { RevocationState } from './revocation-state';

const CALLER = { user_id: '6f1c1e44-5d0c-4a59-9d8e-0d6c1b1f0a11', key_id: '0b5f3f4e-8f7a-4c43-9d8e-0d6c1b1f0a12' };

/** Redis as the authenticator uses it: only to record last use. */
function fakeRedis() {
  return { hset: async () => 1 };
}

function makeSut(verify: (hash: string) => Promise<unknown>, revocations = new RevocationState()) {
  const config = { get: (name: keyof GatewayEnv) => (name === 'AUTH_CACHE_TTL_MS' ? 60_000 : 100) } as ConfigService<GatewayEnv, true>;
  const services = { request: jest.fn((_pattern: string, payload: { key_hash: string }) => verify(payload.key_hash)) };
  const sut = new ApiKeyAuthenticator(config, services as unknown as ServiceClient, fakeRedis() as unknown as Redis, new RedisKeyspace('test'), revocations);
  return { sut, services, revocations };
}

describe(ApiKeyAuthenticator.name, () => {
  it('accepts a key agents-service verifies', async () => {
    const { sut } = makeSut(async () => CALLER);
    await expect(sut.authenticate(generateApiKey().token, 'r1')).resolves.toEqual(CALLER);
  });

  // Found by the hostile-input fuzz: latin-1 header bytes in the checksum made timingSafeEqual throw (a 500).
  it.each([
    ['a latin-1 checksum in our format', () => `${generateApiKey().token.slice(0, -6)}${'\u00e9'.repeat(6)}`],
    ['latin-1 bytes in the random part', () => `aas_${'\u00ff'.repeat(30)}AAAAAA`],
    ['a control character', () => `${generateApiKey().token}\u0007`],
    ['a latin-1 bootstrap-style key', () => 'cl\u00e9-of-the-admin'],
  ])('answers %s with a 401 without asking agents-service', async (_label, token) => {
    const { sut, services } = makeSut(async () => CALLER);
    await expect(sut.authenticate(token(), 'r2')).rejects.toBeInstanceOf(UnauthorizedError);
    expect(services.request).not.toHaveBeenCalled();
  });

  it('still looks up a non-format key of printable ASCII (a bootstrap key), spaces included', async () => {
    const { sut, services } = makeSut(async () => CALLER);
    await expect(sut.authenticate('my bootstrap key 123', 'r3')).resolves.toEqual(CALLER);
    expect(services.request).toHaveBeenCalledTimes(1);
  });

  it('answers a key agents-service does not know with a 401', async () => {
    const { sut } = makeSut(async () => null);
    await expect(sut.authenticate(generateApiKey().token, 'r4')).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('runs beforeLookUp only when it must ask agents-service, and does not ask when it refuses', async () => {
    const listening = new RevocationState();
    listening.subscribed();
    const { sut, services } = makeSut(async () => CALLER, listening);
    const token = generateApiKey().token;
    const beforeLookUp = jest.fn(async () => undefined);
    await sut.authenticate(token, 'r5', beforeLookUp);
    expect(beforeLookUp).toHaveBeenCalledTimes(1);
    await sut.authenticate(token, 'r5b', beforeLookUp);
    expect(beforeLookUp).toHaveBeenCalledTimes(1);
    await sut.authenticate(generateApiKey().token.slice(0, -1) + '!', 'r6', beforeLookUp).catch(() => undefined);
    expect(beforeLookUp).toHaveBeenCalledTimes(1);

    const refused = new Error('over the allowance');
    await expect(sut.authenticate(generateApiKey().token, 'r7', async () => Promise.reject(refused))).rejects.toBe(refused);
    expect(services.request).toHaveBeenCalledTimes(1);
  });

  describe('revocation', () => {
    const listening = () => {
      const state = new RevocationState();
      state.subscribed();
      return state;
    };

    it('verifies with agents-service on every request while revocations are not being announced', async () => {
      const { sut, services } = makeSut(async () => CALLER);
      const token = generateApiKey().token;
      await sut.authenticate(token, 'r1');
      await sut.authenticate(token, 'r2');
      expect(services.request).toHaveBeenCalledTimes(2);
      services.request.mockImplementation(async () => null);
      await expect(sut.authenticate(token, 'r3')).rejects.toBeInstanceOf(UnauthorizedError);
    });

    it('trusts a verified key while listening, and refuses it as soon as its revocation is announced', async () => {
      const { sut, services, revocations } = makeSut(async () => CALLER, listening());
      const token = generateApiKey().token;
      await sut.authenticate(token, 'r1');
      await sut.authenticate(token, 'r2');
      expect(services.request).toHaveBeenCalledTimes(1);
      revocations.revoked(CALLER.key_id);
      services.request.mockImplementation(async () => null);
      await expect(sut.authenticate(token, 'r3')).rejects.toBeInstanceOf(UnauthorizedError);
    });

    it('asks agents-service again after the subscription was lost, even once it is back (no marker is trusted)', async () => {
      const { sut, services, revocations } = makeSut(async () => CALLER, listening());
      const token = generateApiKey().token;
      await sut.authenticate(token, 'r1');
      revocations.unsubscribed();
      revocations.subscribed();
      services.request.mockImplementation(async () => null);
      await expect(sut.authenticate(token, 'r2')).rejects.toBeInstanceOf(UnauthorizedError);
      expect(services.request).toHaveBeenCalledTimes(2);
      await expect(sut.authenticate(token, 'r3')).rejects.toBeInstanceOf(UnauthorizedError);
    });

    it('does not charge a cached key again when it is verified again', async () => {
      const { sut, revocations } = makeSut(async () => CALLER, listening());
      const token = generateApiKey().token;
      const beforeLookUp = jest.fn(async () => undefined);
      await sut.authenticate(token, 'r1', beforeLookUp);
      revocations.unsubscribed();
      await sut.authenticate(token, 'r2', beforeLookUp);
      expect(beforeLookUp).toHaveBeenCalledTimes(1);
    });

    it('does not trust a check during which a revocation arrived', async () => {
      let announce = () => undefined as void;
      const { sut, services, revocations } = makeSut(async () => {
        announce();
        return CALLER;
      }, listening());
      announce = () => revocations.revoked('some-other-key');
      const token = generateApiKey().token;
      await sut.authenticate(token, 'r1');
      announce = () => undefined;
      await sut.authenticate(token, 'r2');
      await sut.authenticate(token, 'r3');
      expect(services.request).toHaveBeenCalledTimes(2);
    });
  });
});
