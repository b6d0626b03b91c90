import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The console's session cookie: an opaque random token; only its SHA-256 is stored. */
export const SESSION_COOKIE = 'aas_session';
/** The header every console request carries next to the cookie. */
export const CSRF_HEADER = 'x-csrf-token';
export const SETUP_TOKEN_PREFIX = 'aas_setup_';

/** 32 random bytes, base64url: a session token. */
export function generateSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/** A one-time first-run setup token, recognisable by its prefix. */
export function generateSetupToken(): string {
  return SETUP_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** Hex SHA-256: how session and setup tokens are stored and looked up. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The CSRF token of a session, derived from its (secret, HttpOnly) session token: a
 * page of another origin can neither read the cookie nor this token, while the
 * console reads it from GET /v1/console/session. Nothing more is stored.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('aas-console-csrf-v1').digest('base64url');
}

export function csrfTokenMatches(sessionToken: string, presented: string): boolean {
  const expected = Buffer.from(csrfTokenFor(sessionToken));
  const actual = Buffer.from(presented);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
