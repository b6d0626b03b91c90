import { isSsrfBlocked } from '@aas/platform';
import { Dispatcher, request } from 'undici';
import { z } from 'zod';

export const HTTP_REQUEST = 'http_request';

export const httpRequestInput = z.object({
  method: z.enum(['GET', 'POST']).describe('GET to read, POST to send'),
  url: z.string().describe('absolute http(s) URL'),
  headers: z.record(z.string(), z.string()).optional().describe('request headers'),
  body: z.string().optional().describe('request body (POST)'),
});
export type HttpRequestInput = z.infer<typeof httpRequestInput>;

export const HTTP_REQUEST_DESCRIPTION =
  'Sends an HTTP GET or POST to a public web address and returns the status, content type and body (cut to a size limit).';

export interface HttpToolLimits {
  dispatcher: Dispatcher;
  /** Exact host names allowed; undefined: any public host. */
  allowedHosts: string[] | undefined;
  timeoutMs: number;
  maxBytes: number;
}

/** A refusal or failure of http_request; its message goes to the model and the tool_result line. */
export class HttpToolError extends Error {
  override name = 'HttpToolError';
}

// Set by the HTTP client itself; a model-chosen value would only break the request.
const DROPPED_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive', 'upgrade', 'te', 'trailer']);

/** The request, through the SSRF-guarded dispatcher, within the time and size limits. */
export async function sendHttpRequest(input: HttpRequestInput, limits: HttpToolLimits, signal: AbortSignal | undefined): Promise<string> {
  const url = allowedUrl(input.url, limits.allowedHosts);
  const headers = Object.fromEntries(Object.entries(input.headers ?? {}).filter(([name]) => !DROPPED_HEADERS.has(name.toLowerCase())));
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  try {
    const response = await request(url, {
      method: input.method,
      headers,
      body: input.method === 'POST' ? (input.body ?? '') : undefined,
      dispatcher: limits.dispatcher,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    const { text, truncated } = await readBody(response.body, limits.maxBytes);
    const contentType = String(response.headers['content-type'] ?? '');
    return `HTTP ${response.statusCode}${contentType ? ` (${contentType})` : ''}${truncated ? `, body cut to ${limits.maxBytes} bytes` : ''}\n\n${text}`;
  } catch (error) {
    if (signal?.aborted) throw error;
    if (timeout.aborted) throw new HttpToolError(`no complete answer from ${url.host} within HTTP_TOOL_TIMEOUT_MS (${limits.timeoutMs} ms)`);
    if (isSsrfBlocked(error)) throw new HttpToolError(`refused: ${messageInChain(error)}`);
    throw new HttpToolError(`the request to ${url.host} failed: ${messageInChain(error)}`);
  }
}

function allowedUrl(text: string, allowedHosts: string[] | undefined): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new HttpToolError('url must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new HttpToolError(`url must use http or https, not ${url.protocol}`);
  if (url.username || url.password) throw new HttpToolError('url must not contain a username or password');
  if (allowedHosts && !allowedHosts.includes(url.hostname.toLowerCase())) {
    throw new HttpToolError(`the host ${url.hostname} is not in this installation's HTTP_TOOL_ALLOWED_HOSTS`);
  }
  return url;
}

/** Reads at most maxBytes of the body, then stops the download. */
async function readBody(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    if (size + buffer.length > maxBytes) {
      chunks.push(buffer.subarray(0, maxBytes - size));
      body.destroy();
      return { text: Buffer.concat(chunks).toString('utf8'), truncated: true };
    }
    chunks.push(buffer);
    size += buffer.length;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncated: false };
}

function messageInChain(error: unknown): string {
  const messages: string[] = [];
  let current: unknown = error;
  while (current instanceof Error && messages.length < 4) {
    if (current.message) messages.push(current.message);
    current = current.cause;
  }
  return messages.at(-1) ?? 'unknown error';
}
