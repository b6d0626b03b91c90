import { hash, randomInt, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API keys look like GitHub's tokens: a recognisable prefix, 30 random
 * base62 characters (~178 bits) and a 6-character CRC32 checksum, so a typo or
 * a random string is rejected without a database look-up and secret scanners
 * can find leaked keys.
 */
export const API_KEY_PREFIX = 'aas_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
const DISPLAY_RANDOM_CHARS = 6;
export const API_KEY_LENGTH = API_KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;

export interface GeneratedApiKey {
  token: string;
  displayPrefix: string;
}

export function generateApiKey(): GeneratedApiKey {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(BASE62.length)];
  const token = API_KEY_PREFIX + random + checksumOf(random);
  return { token, displayPrefix: displayPrefixOf(token) };
}

export function displayPrefixOf(token: string): string {
  return token.startsWith(API_KEY_PREFIX)
    ? token.slice(0, API_KEY_PREFIX.length + DISPLAY_RANDOM_CHARS)
    : token.slice(0, Math.min(4, Math.floor(token.length / 4)));
}

/** True for a key in our format whose checksum matches. Keys of another shape (a bootstrap key) are not ours to judge. */
export function hasOurFormat(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}

export function hasValidChecksum(token: string): boolean {
  if (token.length !== API_KEY_LENGTH || !token.startsWith(API_KEY_PREFIX)) return false;
  const random = token.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + RANDOM_LENGTH);
  if (![...random].every((c) => BASE62.includes(c))) return false;
  const expected = Buffer.from(checksumOf(random));
  const actual = Buffer.from(token.slice(-CHECKSUM_LENGTH));
  // Non-ASCII characters take more bytes than characters; timingSafeEqual throws on unequal lengths.
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Only this hash is stored; the key itself is shown once. One-shot `hash`: no Hash object per request. */
export function hashApiKey(token: string): string {
  return hash('sha256', token, 'hex');
}

function checksumOf(random: string): string {
  let value = crc32(random);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}
