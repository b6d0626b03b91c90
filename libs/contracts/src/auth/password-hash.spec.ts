import { randomBytes, scryptSync } from 'node:crypto';
import { hashPassword, needsRehash, verifyPassword } from './password-hash';

/** A hash as this service made them before argon2id (scrypt, N = 2^15, r = 8, p = 1). */
function legacyScryptHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize('NFKC'), salt, 64, { N: 2 ** 15, r: 8, p: 1, maxmem: 128 * 2 ** 15 * 8 * 2 });
  return ['scrypt', 2 ** 15, 8, 1, salt.toString('base64'), key.toString('base64')].join('$');
}

describe('password hashing', () => {
  it('hashes with argon2id at m = 19 MiB, t = 2, p = 1, and verifies that password and no other', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    await expect(verifyPassword('correct horse battery staple', stored)).resolves.toBe(true);
    await expect(verifyPassword('correct horse battery stapler', stored)).resolves.toBe(false);
    expect(needsRehash(stored)).toBe(false);
  });

  it('salts each hash', async () => {
    expect(await hashPassword('same password!')).not.toBe(await hashPassword('same password!'));
  });

  it('treats compatibility-equal spellings as one password (NFKC)', async () => {
    const stored = await hashPassword('ｐａｓｓｗｏｒｄ１２３４５');
    await expect(verifyPassword('password12345', stored)).resolves.toBe(true);
  });

  it('still verifies an scrypt hash of the earlier format, and says it needs replacing', async () => {
    const stored = legacyScryptHash('ｐａｓｓｗｏｒｄ１２３４５');
    await expect(verifyPassword('password12345', stored)).resolves.toBe(true);
    await expect(verifyPassword('password12346', stored)).resolves.toBe(false);
    expect(needsRehash(stored)).toBe(true);
  });

  it('says an argon2id hash of weaker parameters needs replacing', () => {
    expect(needsRehash('$argon2id$v=19$m=4096,t=1,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNo')).toBe(true);
  });

  it.each([
    ['not ours', 'bcrypt$2b$10$abc'],
    ['a truncated scrypt hash', 'scrypt$32768$8$1$c2FsdA=='],
    ['absurd scrypt parameters', 'scrypt$1073741824$8$1$c2FsdA==$aGFzaA=='],
    ['argon2i', '$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNo'],
    ['absurd argon2id memory', '$argon2id$v=19$m=999999,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNo'],
    ['a truncated argon2id hash', '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0'],
    ['empty', ''],
  ])('refuses a stored value that is %s', async (_label, stored) => {
    await expect(verifyPassword('whatever password', stored)).resolves.toBe(false);
  });
});
