import { hashPassword, verifyPassword } from './password-hash';

describe('password hashing', () => {
  it('verifies the password it hashed, and no other', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    await expect(verifyPassword('correct horse battery staple', stored)).resolves.toBe(true);
    await expect(verifyPassword('correct horse battery stapler', stored)).resolves.toBe(false);
  });

  it('salts each hash', async () => {
    expect(await hashPassword('same password!')).not.toBe(await hashPassword('same password!'));
  });

  it('treats compatibility-equal spellings as one password (NFKC)', async () => {
    const stored = await hashPassword('ｐａｓｓｗｏｒｄ１２３４５');
    await expect(verifyPassword('password12345', stored)).resolves.toBe(true);
  });

  it.each([
    ['not ours', 'bcrypt$2b$10$abc'],
    ['a truncated hash', 'scrypt$32768$8$1$c2FsdA=='],
    ['absurd parameters', 'scrypt$1073741824$8$1$c2FsdA==$aGFzaA=='],
    ['empty', ''],
  ])('refuses a stored value that is %s', async (_label, stored) => {
    await expect(verifyPassword('whatever password', stored)).resolves.toBe(false);
  });
});
