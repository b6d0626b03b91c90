import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import {
  API_KEY_LENGTH,
  API_KEY_PREFIX,
  displayPrefixOf,
  generateApiKey,
  hasValidChecksum,
  hashApiKey,
} from './api-key-token';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Replaces the character at `index` with a different base62 character. */
function flipAt(token: string, index: number): string {
  const next = BASE62[(BASE62.indexOf(token[index]) + 1) % BASE62.length];
  return token.slice(0, index) + next + token.slice(index + 1);
}

/** The documented checksum: CRC32 of the random part, as 6 big-endian base62 digits. */
function checksumOf(random: string): string {
  let value = crc32(random);
  let out = '';
  for (let i = 0; i < 6; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

describe('generateApiKey', () => {
  it('produces prefixed, full-length base62 tokens with a valid checksum', () => {
    const { token } = generateApiKey();
    expect(token.startsWith('aas_')).toBe(true);
    expect(token).toHaveLength(API_KEY_LENGTH);
    expect(token.slice(API_KEY_PREFIX.length)).toMatch(/^[0-9A-Za-z]+$/);
    expect(hasValidChecksum(token)).toBe(true);
  });

  it('never repeats a token across 1000 generations', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => generateApiKey().token));
    expect(tokens.size).toBe(1000);
  });

  it('returns a display prefix that starts the token and is shorter than it', () => {
    const { token, displayPrefix } = generateApiKey();
    expect(token.startsWith(displayPrefix)).toBe(true);
    expect(displayPrefix.length).toBeGreaterThan(API_KEY_PREFIX.length);
    expect(displayPrefix.length).toBeLessThan(token.length);
    expect(displayPrefix).toBe(displayPrefixOf(token));
  });
});

describe('hasValidChecksum', () => {
  it('rejects a token when any single character after the prefix is changed', () => {
    for (let n = 0; n < 20; n++) {
      const { token } = generateApiKey();
      for (let i = API_KEY_PREFIX.length; i < token.length; i++) {
        expect({ i, valid: hasValidChecksum(flipAt(token, i)) }).toEqual({ i, valid: false });
      }
    }
  });

  it('rejects, without throwing, a checksum made of non-ASCII characters', () => {
    const { token } = generateApiKey();
    const withUnicode = token.slice(0, -2) + 'é€';
    expect(withUnicode.length).toBe(token.length);
    expect(hasValidChecksum(withUnicode)).toBe(false);
  });

  it('rejects tokens of the wrong length', () => {
    const { token } = generateApiKey();
    expect(hasValidChecksum(token.slice(0, -1))).toBe(false);
    expect(hasValidChecksum(token + 'A')).toBe(false);
    expect(hasValidChecksum('')).toBe(false);
  });

  it('rejects tokens with another prefix', () => {
    const { token } = generateApiKey();
    const rest = token.slice(API_KEY_PREFIX.length);
    expect(hasValidChecksum('aat_' + rest)).toBe(false);
    expect(hasValidChecksum('AAS_' + rest)).toBe(false);
  });

  it('accepts a hand-built key whose checksum is the CRC32 of its random part', () => {
    const random = 'a'.repeat(15) + 'Z9'.repeat(7) + 'q';
    expect(hasValidChecksum(API_KEY_PREFIX + random + checksumOf(random))).toBe(true);
  });

  it('rejects non-base62 characters in the random part even with a matching checksum', () => {
    for (const bad of ['-', '_', ' ', '+', 'é']) {
      const random = bad + 'b'.repeat(29);
      expect(hasValidChecksum(API_KEY_PREFIX + random + checksumOf(random))).toBe(false);
    }
  });
});

describe('hashApiKey', () => {
  it('is the sha256 hex digest of the token', () => {
    const { token } = generateApiKey();
    const expected = createHash('sha256').update(token, 'utf8').digest('hex');
    expect(hashApiKey(token)).toBe(expected);
    expect(hashApiKey(token)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('hashes the UTF-8 bytes of any string, as the stored hashes were made', () => {
    const token = 'bootstrap-clé-ключ';
    expect(hashApiKey(token)).toBe(createHash('sha256').update(token, 'utf8').digest('hex'));
  });

  it('differs for different tokens', () => {
    expect(hashApiKey(generateApiKey().token)).not.toBe(hashApiKey(generateApiKey().token));
  });
});

describe('displayPrefixOf', () => {
  it.each(['bootstrap-secret-0123456789abcdef', 'abcdefgh', 'abc', 'x'.repeat(200)])(
    'reveals at most a quarter of a foreign token (%s)',
    (token) => {
      const prefix = displayPrefixOf(token);
      expect(token.startsWith(prefix)).toBe(true);
      expect(prefix.length).toBeLessThanOrEqual(token.length / 4);
    },
  );
});
