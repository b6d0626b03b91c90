/** A small fetch wrapper for the e2e tests: JSON in, parsed body and headers out. */
export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export async function http<T = any>(
  base: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers['x-api-key'] = options.key;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(base + path, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: the raw text is the body
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}

/** Asserts an RFC 9457 answer: content type, the four members, status matching the HTTP status, a request id. */
export function expectProblem(result: HttpResult, status: number): void {
  expect(result.status).toBe(status);
  expect(result.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(result.headers.get('x-request-id')).toBeTruthy();
  expect(result.body).toEqual(
    expect.objectContaining({
      type: expect.stringMatching(/^(urn:aas:problem:[a-z-]+|about:blank)$/),
      title: expect.any(String),
      status,
      detail: expect.any(String),
    }),
  );
  expect(JSON.stringify(result.body)).not.toMatch(/\bat .+\.(ts|js):\d+/);
  expect(result.body).not.toHaveProperty('stack');
}
