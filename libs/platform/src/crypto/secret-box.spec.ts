import { createDecipheriv, randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';

const keyBase64 = randomBytes(32).toString('base64');

function flipFirstByte(base64: string): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[0] ^= 0x01;
  return bytes.toString('base64');
}

describe(SecretBox.name, () => {
  const box = new SecretBox(keyBase64);

  it('opens what it sealed', () => {
    const secret = 'whsec_c2VjcmV0LWJ5dGVzLWZvci10ZXN0aW5nLW9ubHktMzI=';
    expect(box.open(box.seal(secret))).toBe(secret);
    expect(box.open(box.seal('ünïcødé ✓'))).toBe('ünïcødé ✓');
    expect(box.open(box.seal(''))).toBe('');
  });

  it('seals as v1.<iv>.<tag>.<ciphertext> that plain AES-256-GCM opens', () => {
    const sealed = box.seal('hello');
    const [version, iv, tag, ciphertext] = sealed.split('.');
    expect(version).toBe('v1');
    expect(Buffer.from(iv, 'base64')).toHaveLength(12);
    expect(Buffer.from(tag, 'base64')).toHaveLength(16);
    const decipher = createDecipheriv('aes-256-gcm', Buffer.from(keyBase64, 'base64'), Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    expect(Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString()).toBe('hello');
  });

  it('uses a fresh IV, so the same secret seals differently each time', () => {
    const first = box.seal('same');
    const second = box.seal('same');
    expect(first).not.toBe(second);
    expect(first.split('.')[1]).not.toBe(second.split('.')[1]);
  });

  it.each([
    ['ciphertext', 3],
    ['tag', 2],
    ['iv', 1],
  ])('rejects a sealed secret whose %s was altered', (_name, index) => {
    const parts = box.seal('whsec_abc').split('.');
    parts[index] = flipFirstByte(parts[index]);
    expect(() => box.open(parts.join('.'))).toThrow(/failed authentication/);
  });

  it('rejects a truncated tag', () => {
    const parts = box.seal('whsec_abc').split('.');
    parts[2] = Buffer.from(parts[2], 'base64').subarray(0, 4).toString('base64');
    expect(() => box.open(parts.join('.'))).toThrow(/wrong length/);
  });

  it('rejects another format or version', () => {
    const sealed = box.seal('x');
    expect(() => box.open(sealed.replace(/^v1\./, 'v2.'))).toThrow(/v1\.<iv>\.<tag>\.<ciphertext>/);
    expect(() => box.open('whsec_plaintext')).toThrow(/v1\.<iv>\.<tag>\.<ciphertext>/);
  });

  it('cannot open with another key', () => {
    const other = new SecretBox(randomBytes(32).toString('base64'));
    expect(() => other.open(box.seal('whsec_abc'))).toThrow(/failed authentication/);
  });

  it.each([16, 31, 33, 64])('rejects a %i-byte key', (bytes) => {
    expect(() => new SecretBox(randomBytes(bytes).toString('base64'))).toThrow(`must be 32 bytes in base64, got ${bytes} bytes`);
  });

  it('rejects an empty key', () => {
    expect(() => new SecretBox('')).toThrow(/must be 32 bytes/);
  });
});
