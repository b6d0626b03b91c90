import { HOME, pathAfterSignIn, signInPath } from './deep-link';

describe('deep links through sign-in', () => {
  it('carries the page asked for, query and hash included, and brings it back', () => {
    const asked = '/agents/5c1d/webhooks/9a7e?page=2#delivery-3';
    const login = signInPath(asked);
    expect(login).toMatch(/^\/login\?next=/);
    expect(pathAfterSignIn(login.slice(login.indexOf('?')))).toBe(asked);
  });

  it('goes to the agents when nothing, or only the home page, was asked for', () => {
    expect(signInPath('/')).toBe('/login');
    expect(signInPath(HOME)).toBe('/login');
    expect(pathAfterSignIn('')).toBe(HOME);
    expect(pathAfterSignIn('?next=')).toBe(HOME);
  });

  it.each(['https://evil.example/', '//evil.example/x', '/\\evil.example', 'agents', 'javascript:alert(1)', '/agents\n/x'])('refuses %j, which is not a path of this console', (next) => {
    expect(pathAfterSignIn(`?${new URLSearchParams({ next })}`)).toBe(HOME);
  });
});
