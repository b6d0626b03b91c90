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

/** Bytes a sender's own secret may hold: Svix makes 24, our own are 32; fewer is too easy to guess. */
const GIVEN_SECRET_BYTES = { min: 24, max: 64 };

/** Why a secret a sender made cannot sign here, or null: `whsec_` and canonical base64 of 24 to 64 bytes. */
export function givenSecretFault(secret: string): string | null {
  const encoded = secret.startsWith(STANDARD_SECRET_PREFIX) ? secret.slice(STANDARD_SECRET_PREFIX.length) : '';
  const bytes = Buffer.from(encoded, 'base64');
  if (!encoded || bytes.toString('base64') !== encoded) return 'secret must be whsec_ followed by base64';
  if (bytes.length < GIVEN_SECRET_BYTES.min || bytes.length > GIVEN_SECRET_BYTES.max) {
    return `secret must hold ${GIVEN_SECRET_BYTES.min} to ${GIVEN_SECRET_BYTES.max} bytes; this one holds ${bytes.length}`;
  }
  return null;
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
