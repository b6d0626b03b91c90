import { HttpResult, http } from './http';

/** The session a console sign-in gave: its cookie and CSRF token, as a browser would hold them. */
export interface ConsoleSession {
  cookie: string;
  csrf: string;
  userId: string;
  email: string;
}

/** The `name=value` of the session cookie a response set (`aas_session`, or `__Host-aas_session` over HTTPS), and its attributes. */
export function sessionCookieOf(result: HttpResult): { pair: string; attributes: string } {
  const header = result.headers.getSetCookie().find((c) => /^(__Host-)?aas_session=/.test(c));
  if (!header) throw new Error(`no session cookie in ${JSON.stringify(result.headers.getSetCookie())}`);
  const [pair, ...attributes] = header.split(';').map((part) => part.trim());
  return { pair, attributes: attributes.join('; ') };
}

export async function consoleLogin(base: string, email: string, password: string): Promise<ConsoleSession> {
  const result = await http(base, 'POST', '/v1/console/login', { body: { email, password } });
  if (result.status !== 200) throw new Error(`login of ${email}: ${result.status} ${JSON.stringify(result.body)}`);
  return { cookie: sessionCookieOf(result).pair, csrf: result.body.csrf_token, userId: result.body.user_id, email };
}

/** A request with the session: cookie and CSRF header by default, either left out on request. */
export function withSession(
  base: string,
  session: ConsoleSession,
  method: string,
  path: string,
  options: { body?: unknown; csrf?: string | null; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { cookie: session.cookie, ...options.headers };
  const csrf = options.csrf === undefined ? session.csrf : options.csrf;
  if (csrf !== null) headers['x-csrf-token'] = csrf;
  return http(base, method, path, { body: options.body, headers });
}
