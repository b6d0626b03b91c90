/** Where sign-in goes afterwards when nothing else was asked for. */
export const HOME = '/agents';

/**
 * The sign-in page's address for a visitor who asked for `path` (with its query and hash): the
 * console path travels in `?next=` so that a reload of the sign-in page keeps it too.
 */
export function signInPath(path: string): string {
  return path === '/' || path === HOME ? '/login' : `/login?${new URLSearchParams({ next: path })}`;
}

/**
 * The console path to go to after sign-in: `?next=` when it is a path of this console (one leading
 * slash: never `//host` or `/\host`, which a browser would read as another site), else the agents.
 */
export function pathAfterSignIn(search: string): string {
  const next = new URLSearchParams(search).get('next');
  return next && /^\/(?![/\\])/.test(next) && !/\p{Cc}/u.test(next) ? next : HOME;
}
