import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Console passwords are hashed with scrypt (node:crypto). The parameters are
 * stored with each hash, so raising them later only affects new hashes:
 *
 *   scrypt$<N>$<r>$<p>$<salt, base64>$<hash, base64>
 *
 * N = 2^15, r = 8 (32 MiB per hash, about 150 ms on one core of a small VM).
 */
const N = 2 ** 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 64;
const SALT_BYTES = 16;
/** Node refuses scrypt above maxmem (32 MiB by default); 128 * N * r is the need. */
const maxmemFor = (n: number, r: number) => 128 * n * r * 2;

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { N: n, r, p, maxmem: maxmemFor(n, r) }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, N, R, P);
  return ['scrypt', N, R, P, salt.toString('base64'), key.toString('base64')].join('$');
}

/** True when `password` matches `stored`; false for a wrong password and for a stored value that is not ours. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  if (![n, r, p].every(Number.isSafeInteger) || n > 2 ** 20 || r > 32 || p > 16) return false;
  const expected = Buffer.from(parts[5], 'base64');
  const actual = await derive(password, Buffer.from(parts[4], 'base64'), n, r, p);
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
