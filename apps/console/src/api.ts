import { AasApiError, type Problem, createAasClient, headerMiddleware, isProblem, unwrap } from '@aas/sdk';

/**
 * The console talks to the API only through the SDK, on the gateway's own origin, with
 * its session cookie (sent by the browser) and the session's CSRF token in a header.
 */
let csrfToken: string | undefined;

export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

export const api = createAasClient({ baseUrl: '' });
api.use(headerMiddleware('x-csrf-token', () => csrfToken));

export { unwrap };

/** What to show for a failed call: the Problem Details `detail`, as the API wrote it. */
export function problemDetail(error: unknown): string {
  if (error instanceof AasApiError) return error.message;
  if (isProblem(error)) return (error as Problem).detail;
  if (error instanceof TypeError) return 'The server could not be reached';
  return error instanceof Error ? error.message : String(error);
}

export function isUnauthorized(error: unknown): boolean {
  return error instanceof AasApiError && error.status === 401;
}
