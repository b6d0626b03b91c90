import { TRIGGER_TOKEN_PATTERN } from '@aas/contracts';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const STANDARD_SECRET_PREFIX = 'whsec_';

/** The unguessable last segment of an inbound URL: 32 random bytes, base64url. */
export function newTriggerToken(): string {
  return randomBytes(32).toString('base64url');
}

/** A signing secret in the Standard Webhooks form, which GitHub also takes as given. */
export function newTriggerSecret(): string {
  return `${STANDARD_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

export function hashTriggerToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Compares in constant time; a token of the wrong shape never matches. */
export function tokenMatches(token: string, tokenHash: string | null): boolean {
  if (tokenHash === null || !TRIGGER_TOKEN_PATTERN.test(token)) return false;
  const given = Buffer.from(hashTriggerToken(token), 'hex');
  const stored = Buffer.from(tokenHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}
