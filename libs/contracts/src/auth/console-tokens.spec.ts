import { csrfTokenFor, csrfTokenMatches, generateSessionToken, generateSetupToken, hashToken } from './console-tokens';

describe('console tokens', () => {
  it('makes 256-bit base64url session tokens and prefixed setup tokens, never the same twice', () => {
    const session = generateSessionToken();
    expect(session).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generateSessionToken()).not.toBe(session);
    expect(generateSetupToken()).toMatch(/^aas_setup_[A-Za-z0-9_-]{43}$/);
  });

  it('stores tokens by their hex SHA-256', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it("derives each session's CSRF token from it, and matches only that one", () => {
    const session = generateSessionToken();
    const other = generateSessionToken();
    expect(csrfTokenFor(session)).toBe(csrfTokenFor(session));
    expect(csrfTokenMatches(session, csrfTokenFor(session))).toBe(true);
    expect(csrfTokenMatches(session, csrfTokenFor(other))).toBe(false);
    expect(csrfTokenMatches(session, '')).toBe(false);
    expect(csrfTokenMatches(session, `${csrfTokenFor(session)}x`)).toBe(false);
    // Not the session token itself, which must stay out of script reach.
    expect(csrfTokenFor(session)).not.toContain(session);
  });
});
