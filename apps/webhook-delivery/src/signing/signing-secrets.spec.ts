import { SecretBox } from '@aas/platform';
import { SigningSecrets } from './signing-secrets';

describe(SigningSecrets.name, () => {
  const box = new SecretBox(Buffer.alloc(32, 4).toString('base64'));

  it('makes a Standard Webhooks secret whose sealed form, the one stored, opens to it and does not contain it', () => {
    const { secret, sealed } = new SigningSecrets(box).create();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(sealed).not.toContain(secret.slice('whsec_'.length));
    expect(box.open(sealed)).toBe(secret);
  });

  it('makes a different secret each time', () => {
    const sut = new SigningSecrets(box);
    expect(new Set(Array.from({ length: 20 }, () => sut.create().secret)).size).toBe(20);
  });

  it('opens each sealed secret once, then answers it from memory', () => {
    const sut = new SigningSecrets(box);
    const [a, b] = [sut.create(), sut.create()];
    const open = jest.spyOn(box, 'open');
    expect([sut.open(a.sealed), sut.open(b.sealed), sut.open(a.sealed), sut.open(b.sealed)]).toEqual([a.secret, b.secret, a.secret, b.secret]);
    expect(open).toHaveBeenCalledTimes(2);
    open.mockRestore();
  });

  it('refuses a sealed secret that was tampered with', () => {
    const { sealed } = new SigningSecrets(box).create();
    // The ciphertext's first character carries six bits of it, none of them padding.
    const [version, iv, tag, ciphertext] = sealed.split('.');
    const tampered = [version, iv, tag, `${ciphertext.startsWith('A') ? 'B' : 'A'}${ciphertext.slice(1)}`].join('.');
    expect(() => new SigningSecrets(box).open(tampered)).toThrow();
  });
});
