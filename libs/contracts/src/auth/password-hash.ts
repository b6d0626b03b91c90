import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Console passwords are hashed with argon2id (@node-rs/argon2) at OWASP's first recommended
 * setting: m = 19 MiB, t = 2, p = 1, a 16-byte random salt, in the PHC string format
 * (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`), so the parameters travel with each hash.
 * 19 MiB per hash keeps even the libuv thread pool's four at once (76 MiB) well inside a pod.
 *
 * Hashes made before (`scrypt$<N>$<r>$<p>$<salt>$<hash>`, N = 2^15) still verify; `needsRehash`
 * says which to replace at the next successful sign-in.
 */
const ARGON2_OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
const CURRENT_PREFIX = `$argon2id$v=19$m=${ARGON2_OPTIONS.memoryCost},t=${ARGON2_OPTIONS.timeCost},p=${ARGON2_OPTIONS.parallelism}$`;
/** An argon2id PHC string with sane parameters (at most 256 MiB, 10 passes, 4 lanes): anything else is not ours. */
const ARGON2ID = /^\$argon2id\$v=19\$m=(\d{1,6}),t=(\d{1,2}),p=(\d)\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;

const SCRYPT_KEY_LENGTH = 64;
/** Node refuses scrypt above maxmem (32 MiB by default); 128 * N * r is the need. */
const maxmemFor = (n: number, r: number) => 128 * n * r * 2;

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

/** Compatibility-equal spellings (full-width digits, ligatures) are one password. */
const normalized = (password: string) => password.normalize('NFKC');

export function hashPassword(password: string): Promise<string> {
  return argon2Hash(normalized(password), ARGON2_OPTIONS);
}

/** True when `password` matches `stored`; false for a wrong password and for a stored value that is not ours. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (stored.startsWith('scrypt$')) return verifyScrypt(normalized(password), stored);
  const params = ARGON2ID.exec(stored);
  if (!params) return false;
  const [memory, passes, lanes] = params.slice(1).map(Number);
  if (memory < 8 || memory > 262_144 || passes < 1 || passes > 10 || lanes < 1 || lanes > 4) return false;
  return argon2Verify(stored, normalized(password));
}

/** True when `stored` is not an argon2id hash of today's parameters: it is replaced at the next successful sign-in. */
export function needsRehash(stored: string): boolean {
  return !stored.startsWith(CURRENT_PREFIX);
}

async function verifyScrypt(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6) return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  if (![n, r, p].every(Number.isSafeInteger) || n > 2 ** 20 || r > 32 || p > 16) return false;
  const expected = Buffer.from(parts[5], 'base64');
  const actual = await new Promise<Buffer>((resolve, reject) =>
    scrypt(password, Buffer.from(parts[4], 'base64'), SCRYPT_KEY_LENGTH, { N: n, r, p, maxmem: maxmemFor(n, r) }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

let dummyHash: Promise<string> | undefined;

/**
 * A hash of no one's password, to verify against when the email is unknown, so that
 * an unknown email takes as long to refuse as a wrong password.
 */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(24).toString('base64'));
  return dummyHash;
}
