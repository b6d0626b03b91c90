import { hashApiKey } from '@aas/contracts';
import { QuotaExceededError, ResourceNotFoundError } from '@aas/problem-details';
import { AgentsEnv } from '../config/agents.env';
import { fakeAgentsConfig } from '../config/agents-config.fake';
import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { FakeUserQuotaStore } from '../quotas/user-quota.store.fake';
import { UserQuotas } from '../quotas/user-quotas';
import { FakeApiKeyStore } from './api-key.store.fake';
import { ApiKeysService } from './api-keys.service';
import { KeyRevocationRegistry } from './key-revocation.registry';
import { FakeKeyRevocationRegistry } from './key-revocation.registry.fake';

describe(ApiKeysService.name, () => {
  function setup(settings: Partial<AgentsEnv> = {}) {
    const db = new InMemoryDatabase();
    const registry = new FakeKeyRevocationRegistry();
    const quotas = new UserQuotas(fakeAgentsConfig(settings), new FakeUserQuotaStore(db));
    const sut = new ApiKeysService(new FakeApiKeyStore(db), db.transactions, registry as unknown as KeyRevocationRegistry, quotas);
    return { sut, db, registry, user: db.addUser() };
  }

  describe('verify', () => {
    it('answers the user and key of a valid key', async () => {
      const { sut, user } = setup();
      const key = await sut.create(user.id, 'ci');
      expect(await sut.verify(hashApiKey(key.api_key))).toEqual({ user_id: user.id, key_id: key.key_id });
    });

    it('answers null for a key nobody holds', async () => {
      const { sut, user } = setup();
      const key = await sut.create(user.id, 'ci');
      expect(await sut.verify(hashApiKey(`${key.api_key}x`))).toBeNull();
    });

    it('answers null once the key is revoked', async () => {
      const { sut, user } = setup();
      const key = await sut.create(user.id, 'ci');
      await sut.revoke(user.id, key.key_id);
      expect(await sut.verify(hashApiKey(key.api_key))).toBeNull();
    });
  });

  describe('create', () => {
    it('stores only the hash of the key, and answers the key once with its display prefix', async () => {
      const { sut, db, user } = setup();
      const key = await sut.create(user.id, 'ci');
      expect(key.api_key.startsWith(key.display_prefix)).toBe(true);
      expect(db.tables.apiKeys).toEqual([expect.objectContaining({ keyHash: hashApiKey(key.api_key), name: 'ci', userId: user.id })]);
      expect(JSON.stringify(db.tables.apiKeys)).not.toContain(key.api_key);
    });

    it('refuses a key past QUOTA_API_KEYS_PER_USER active keys, and stores nothing for it', async () => {
      const { sut, db, user } = setup({ QUOTA_API_KEYS_PER_USER: 2 });
      await sut.create(user.id, 'one');
      await sut.create(user.id, 'two');
      const refused = sut.create(user.id, 'three');
      await expect(refused).rejects.toBeInstanceOf(QuotaExceededError);
      await expect(refused).rejects.toMatchObject({ quota: 'api_keys_per_user', limit: 2 });
      expect(db.tables.apiKeys.map((k) => k.name)).toEqual(['one', 'two']);
    });

    it('counts active keys only: revoking one frees its slot', async () => {
      const { sut, user } = setup({ QUOTA_API_KEYS_PER_USER: 1 });
      const first = await sut.create(user.id, 'one');
      await sut.revoke(user.id, first.key_id);
      await expect(sut.create(user.id, 'two')).resolves.toMatchObject({ name: 'two' });
    });

    it("counts each user's keys apart, and a quota of 0 is no limit", async () => {
      const { sut, db, user } = setup({ QUOTA_API_KEYS_PER_USER: 1 });
      await sut.create(user.id, 'mine');
      await expect(sut.create(db.addUser().id, 'theirs')).resolves.toMatchObject({ name: 'theirs' });
      const unlimited = setup({ QUOTA_API_KEYS_PER_USER: 0 });
      for (let i = 0; i < 5; i++) await unlimited.sut.create(unlimited.user.id, `k${i}`);
      expect(await unlimited.sut.list(unlimited.user.id)).toHaveLength(5);
    });
  });

  describe('revoke', () => {
    it('writes the Redis marker, then revokes the row; a second revoke is a 404', async () => {
      const { sut, db, registry, user } = setup();
      const key = await sut.create(user.id, 'ci');
      expect(await sut.revoke(user.id, key.key_id)).toEqual({ revoked: true });
      expect(registry.markers.has(key.key_id)).toBe(true);
      expect(db.tables.apiKeys[0].revokedAt).toBeInstanceOf(Date);
      await expect(sut.revoke(user.id, key.key_id)).rejects.toBeInstanceOf(ResourceNotFoundError);
    });

    it('leaves the key valid when the marker cannot be written (the caller is not told it is revoked)', async () => {
      const { sut, registry, user } = setup();
      const key = await sut.create(user.id, 'ci');
      registry.failNextMark = true;
      await expect(sut.revoke(user.id, key.key_id)).rejects.toThrow('Redis is unreachable');
      expect(await sut.verify(hashApiKey(key.api_key))).not.toBeNull();
    });

    it("answers 404 for another user's key and for an id that is not a UUID; the admin revokes any user's key", async () => {
      const { sut, db, user } = setup();
      const key = await sut.create(user.id, 'ci');
      await expect(sut.revoke(db.addUser().id, key.key_id)).rejects.toBeInstanceOf(ResourceNotFoundError);
      await expect(sut.revoke(user.id, 'not-a-uuid')).rejects.toBeInstanceOf(ResourceNotFoundError);
      expect(await sut.verify(hashApiKey(key.api_key))).not.toBeNull();
      await expect(sut.revokeAnyUsersKey(key.key_id)).resolves.toEqual({ revoked: true });
      expect(await sut.verify(hashApiKey(key.api_key))).toBeNull();
    });
  });

  describe('last use', () => {
    it('lists active keys oldest first, each last used at the later of the stored time and the one in Redis', async () => {
      const { sut, db, registry, user } = setup();
      const first = await sut.create(user.id, 'first');
      db.advanceClock(1000);
      const second = await sut.create(user.id, 'second');
      const revoked = await sut.create(user.id, 'revoked');
      await sut.revoke(user.id, revoked.key_id);
      db.tables.apiKeys.find((k) => k.id === first.key_id)!.lastUsedAt = new Date(5_000);
      registry.lastUsed.set(first.key_id, 4_000);
      registry.lastUsed.set(second.key_id, 9_000);
      expect((await sut.list(user.id)).map((k) => [k.name, k.last_used_at])).toEqual([
        ['first', 5_000],
        ['second', 9_000],
      ]);
    });

    it('flushes the times recorded in Redis to the keys, never moving one backwards', async () => {
      const { sut, db, registry, user } = setup();
      const older = await sut.create(user.id, 'older');
      db.advanceClock(1000);
      const newer = await sut.create(user.id, 'newer');
      db.tables.apiKeys.find((k) => k.id === newer.key_id)!.lastUsedAt = new Date(8_000);
      registry.lastUsed.set(older.key_id, 3_000);
      registry.lastUsed.set(newer.key_id, 2_000);
      expect(await sut.flushUsage()).toBe(2);
      expect(registry.lastUsed.size).toBe(0);
      expect((await sut.list(user.id)).map((k) => [k.name, k.last_used_at])).toEqual([
        ['older', 3_000],
        ['newer', 8_000],
      ]);
      expect(await sut.flushUsage()).toBe(0);
    });
  });

  it('ensureKey makes the token a valid key of the user, reviving it (and clearing its marker) once revoked', async () => {
    const { sut, registry, user } = setup();
    const token = 'bootstrap-key-0123456789';
    const id = await sut.ensureKey(user.id, token, 'bootstrap');
    await sut.revoke(user.id, id);
    expect(await sut.ensureKey(user.id, token, 'bootstrap')).toBe(id);
    expect(registry.markers.has(id)).toBe(false);
    expect(await sut.verify(hashApiKey(token))).toEqual({ user_id: user.id, key_id: id });
  });
});
